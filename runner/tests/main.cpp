#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "engine_fixture.h"

int main(int argc, char** argv) {
  mt::register_engine_fixture();
  return doctest::Context(argc, argv).run();
}
