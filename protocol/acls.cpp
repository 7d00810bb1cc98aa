#include "protocol/acls.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeAclsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DescribeAclsResponse)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreateAclsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::CreateAclsResponse)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteAclsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteAclsResponse)
