#include "protocol/delete_records.h"

SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteRecordsRequest)
SKIFF_INSTANTIATE_CODEC(skiff::protocol::DeleteRecordsResponse)
