#include "storage/dump_log.h"
namespace skiff::storage {
int dump_log_main(int, char**) {
    return 2;
}
}  // namespace skiff::storage
