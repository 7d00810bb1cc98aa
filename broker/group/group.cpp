#include "broker/group/group.h"

namespace skiff::broker::group {

std::string_view type_name(GroupType type) {
    switch (type) {
        case GroupType::consumer:
            return "consumer";
        case GroupType::classic:
            return "classic";
        case GroupType::share:
            return "share";
    }
    return "unknown";
}

}  // namespace skiff::broker::group
