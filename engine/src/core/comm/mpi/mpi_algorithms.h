// Which collective algorithms the engine asks Open MPI for, and reading back what was asked: the
// library's own choice is sometimes much slower for the engine's traffic, and a benchmark result
// must say what it measured.
#pragma once

#include <optional>
#include <string_view>

#include "core/comm/communicator.h"

namespace mt {

// Before MPI_Init: asks for the engine's algorithms through Open MPI's MCA environment variables,
// leaving any the user set.
void request_engine_algorithms();

// The algorithm asked for `collective` (as the MCA variable now says, whoever set it); none when
// the library chooses.
std::optional<RequestedAlgorithm> requested_mpi_algorithm(std::string_view collective);

}  // namespace mt
