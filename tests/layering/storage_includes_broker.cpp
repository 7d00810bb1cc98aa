// Must NOT compile: storage/ knows nothing of broker/.
#include "broker/broker.h"  // IWYU pragma: keep
