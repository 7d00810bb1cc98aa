// skiff: a single-binary Kafka-compatible broker.
//   skiff [--config FILE] [--override key=value]...   run the broker
//   skiff dump-log [--verify] PATH...                   print / verify segment files
#include <cstring>
#include <string_view>

#include "storage/dump_log.h"

int main(int argc, char** argv) {
    if (argc >= 2 && std::string_view(argv[1]) == "dump-log")
        return skiff::storage::dump_log_main(argc - 2, argv + 2);
    return 2;
}
