#include "protocol/error_code.h"

namespace skiff::protocol {

const char* error_name(ErrorCode code) {
    switch (code) {
#define SKIFF_ERROR_CASE(name, number, kafka_name) \
    case ErrorCode::name:                          \
        return kafka_name;
        SKIFF_KAFKA_ERROR_CODES(SKIFF_ERROR_CASE)
#undef SKIFF_ERROR_CASE
    }
    return "UNKNOWN_ERROR_CODE";
}

}  // namespace skiff::protocol
