#include "comm/mpi_communicator.h"

#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace mt {
namespace {

std::string local_hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

int world_rank_or_minus_one() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int rank = -1;
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// A failed MPI call is not recoverable for a benchmark: report who failed where, stop every rank.
void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  std::fprintf(stderr, "mtengine: MPI error on rank %d (%s) at %s:%d in %s: %s\n",
               world_rank_or_minus_one(), local_hostname().c_str(), file, line, call, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

#define MT_MPI_CHECK(call) ::mt::check_mpi((call), #call, __FILE__, __LINE__)

double reduce_scalar(double value, MPI_Op op) {
  double out = 0;
  MT_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD));
  return out;
}

}  // namespace

MpiSession::MpiSession() {
  int initialized = 0;
  MT_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
    MT_MPI_CHECK(MPI_Init(nullptr, nullptr));
    // Errors come back as codes so MT_MPI_CHECK can name the call site.
    MT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    owns_ = true;
  }
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

MpiCommunicator::MpiCommunicator() {
  MT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  MT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &world_size_));
}

void MpiCommunicator::barrier() { MT_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  auto* cursor = static_cast<char*>(data);
  // MPI counts are int: send large buffers in pieces.
  while (bytes > 0) {
    const std::size_t piece = bytes < static_cast<std::size_t>(INT_MAX) ? bytes : INT_MAX;
    MT_MPI_CHECK(MPI_Bcast(cursor, static_cast<int>(piece), MPI_BYTE, root, MPI_COMM_WORLD));
    cursor += piece;
    bytes -= piece;
  }
  ++counts_.broadcast;
}

void MpiCommunicator::all_reduce_sum(float* data, std::size_t count) {
  while (count > 0) {
    const std::size_t piece = count < static_cast<std::size_t>(INT_MAX) ? count : INT_MAX;
    MT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(piece), MPI_FLOAT, MPI_SUM,
                               MPI_COMM_WORLD));
    data += piece;
    count -= piece;
  }
  ++counts_.all_reduce;
}

double MpiCommunicator::all_reduce_max(double value) { return reduce_scalar(value, MPI_MAX); }
double MpiCommunicator::all_reduce_min(double value) { return reduce_scalar(value, MPI_MIN); }
double MpiCommunicator::all_reduce_sum(double value) { return reduce_scalar(value, MPI_SUM); }

std::vector<std::vector<double>> MpiCommunicator::gather_to_root(const std::vector<double>& local) {
  const int n = static_cast<int>(local.size());
  std::vector<double> flat(rank_ == 0 ? static_cast<std::size_t>(n) * world_size_ : 0);
  MT_MPI_CHECK(MPI_Gather(local.data(), n, MPI_DOUBLE, flat.data(), n, MPI_DOUBLE, 0,
                          MPI_COMM_WORLD));
  std::vector<std::vector<double>> out;
  if (rank_ != 0) return out;
  for (int r = 0; r < world_size_; ++r)
    out.emplace_back(flat.begin() + static_cast<long>(r) * n, flat.begin() + static_cast<long>(r + 1) * n);
  return out;
}

std::vector<std::string> MpiCommunicator::hostnames() {
  constexpr int kWidth = 256;
  std::string mine = local_hostname();
  mine.resize(kWidth - 1);
  std::vector<char> all(static_cast<std::size_t>(kWidth) * world_size_);
  std::vector<char> send(mine.begin(), mine.end());
  send.push_back('\0');
  MT_MPI_CHECK(MPI_Allgather(send.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR,
                             MPI_COMM_WORLD));
  std::vector<std::string> out;
  for (int r = 0; r < world_size_; ++r) out.emplace_back(all.data() + static_cast<long>(r) * kWidth);
  return out;
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

void abort_job(const std::string& message, int code) {
  std::fprintf(stderr, "mtengine: rank %d (%s): %s\n", world_rank_or_minus_one(),
               local_hostname().c_str(), message.c_str());
  std::fflush(stderr);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace mt
