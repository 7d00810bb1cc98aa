#include "protocol/user_scram_credentials.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeUserScramCredentialsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeUserScramCredentialsResponse)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterUserScramCredentialsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::AlterUserScramCredentialsResponse)
