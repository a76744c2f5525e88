#include "core/comm/mpi/mpi_session.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "core/comm/mpi/mpi_algorithms.h"
#include "core/comm/mpi/mpi_check.h"
#include "core/process/job_abort.h"

namespace mt {

void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  std::fprintf(stderr, "mtengine: MPI error on rank %d (%s) at %s:%d in %s: %s\n", world_rank_or_minus_one(),
               local_hostname().c_str(), file, line, call, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

MpiSession::MpiSession() {
  int initialized = 0;
  MT_MPI_CHECK(MPI_Initialized(&initialized));
  if (initialized) return;
  request_engine_algorithms();
  // Collectives progress on a thread of their own while the main thread computes and talks on
  // the control channel, so both call MPI at once.
  int provided = MPI_THREAD_SINGLE;
  MT_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
  owns_ = true;
  // Errors come back as codes so MT_MPI_CHECK can name the call site.
  MT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (provided < MPI_THREAD_MULTIPLE)
    abort_job(
        "this MPI library does not support MPI_THREAD_MULTIPLE, which the engine's "
        "communication thread needs (Open MPI: build with thread support)",
        2);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  std::string version(text, static_cast<std::size_t>(length));
  const auto newline = version.find_first_of("\r\n");
  if (newline != std::string::npos) version.resize(newline);
  while (!version.empty() && (version.back() == ',' || version.back() == ' ' || version.back() == '\0'))
    version.pop_back();
  return version;
}

}  // namespace mt
