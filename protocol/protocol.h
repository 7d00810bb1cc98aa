// Everything the broker needs from protocol/: framing, headers, the API table and every message.
#pragma once

#include "protocol/api_key.h"
#include "protocol/api_table.h"
#include "protocol/api_versions.h"
#include "protocol/codec.h"
#include "protocol/decode_error.h"
#include "protocol/error_code.h"
#include "protocol/fetch.h"
#include "protocol/frame.h"
#include "protocol/list_offsets.h"
#include "protocol/metadata.h"
#include "protocol/out_buffer.h"
#include "protocol/produce.h"
#include "protocol/record_set.h"
#include "protocol/request_header.h"
