#include <gtest/gtest.h>

TEST(SchemaRegistryPlaceholder, Builds) { SUCCEED(); }
