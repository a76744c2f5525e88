#include "core/comm/mpi/mpi_control_channel.h"

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <thread>

#include "core/comm/mpi/mpi_check.h"
#include "core/process/job_abort.h"

namespace mt {

struct MpiControlChannel::Handles {
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
};

void MpiControlChannel::complete(const char* operation) {
  ++sequence_;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  // Spin (yielding the core) while the wait is short, as a blocking MPI call would; past that,
  // poll every 100 µs so a long wait for a straggler does not burn a core.
  constexpr auto kSpin = std::chrono::milliseconds(2);
  for (;;) {
    int done = 0;
    MT_MPI_CHECK(MPI_Test(&handles_->request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    const auto waited = Clock::now() - start;
    if (timeout_s_ > 0 && std::chrono::duration<double>(waited).count() > timeout_s_)
      abort_job(fmt::format("control channel timeout: waited {:g} s for {} #{} (the ranks' "
                            "step-start, health-check and checkpoint agreements travel here); a "
                            "peer is stuck, slow or gone (raise --collective-timeout if this is "
                            "expected)",
                            timeout_s_, operation, sequence_),
                1);
    if (waited < kSpin) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

MpiControlChannel::MpiControlChannel() : handles_(std::make_unique<Handles>()) {
  MT_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &handles_->world));
  MT_MPI_CHECK(MPI_Comm_set_errhandler(handles_->world, MPI_ERRORS_RETURN));
  MT_MPI_CHECK(MPI_Comm_rank(handles_->world, &rank_));
  MT_MPI_CHECK(MPI_Comm_size(handles_->world, &world_size_));
  MPI_Comm node = MPI_COMM_NULL;
  MT_MPI_CHECK(MPI_Comm_split_type(handles_->world, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  MT_MPI_CHECK(MPI_Comm_rank(node, &local_rank_));
  MT_MPI_CHECK(MPI_Comm_size(node, &local_size_));
  MPI_Comm_free(&node);
}

MpiControlChannel::~MpiControlChannel() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && handles_->world != MPI_COMM_NULL) MPI_Comm_free(&handles_->world);
}

void MpiControlChannel::barrier() {
  MT_MPI_CHECK(MPI_Ibarrier(handles_->world, &handles_->request));
  complete("barrier");
}

double MpiControlChannel::reduce(double value, Reduction reduction) {
  double out = 0;
  const MPI_Op op = reduction == Reduction::max ? MPI_MAX : reduction == Reduction::min ? MPI_MIN : MPI_SUM;
  MT_MPI_CHECK(MPI_Iallreduce(&value, &out, 1, MPI_DOUBLE, op, handles_->world, &handles_->request));
  complete(reduction == Reduction::max ? "max" : reduction == Reduction::min ? "min" : "sum");
  return out;
}

double MpiControlChannel::max(double value) { return reduce(value, Reduction::max); }
double MpiControlChannel::min(double value) { return reduce(value, Reduction::min); }
double MpiControlChannel::sum(double value) { return reduce(value, Reduction::sum); }

void MpiControlChannel::sum(std::vector<double>& values) {
  MT_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM,
                              handles_->world, &handles_->request));
  complete("sum");
}

std::vector<std::vector<double>> MpiControlChannel::gather_to_root(const std::vector<double>& local) {
  const int n = static_cast<int>(local.size());
  std::vector<double> flat(rank_ == 0 ? static_cast<std::size_t>(n) * world_size_ : 0);
  MT_MPI_CHECK(
      MPI_Igather(local.data(), n, MPI_DOUBLE, flat.data(), n, MPI_DOUBLE, 0, handles_->world, &handles_->request));
  complete("gather");
  std::vector<std::vector<double>> out;
  if (rank_ != 0) return out;
  for (int r = 0; r < world_size_; ++r)
    out.emplace_back(flat.begin() + static_cast<long>(r) * n, flat.begin() + static_cast<long>(r + 1) * n);
  return out;
}

std::vector<std::string> MpiControlChannel::gather_text_to_root(const std::string& local) {
  const int length = static_cast<int>(local.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(world_size_) : 0);
  MT_MPI_CHECK(MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, handles_->world, &handles_->request));
  complete("gather");
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MT_MPI_CHECK(MPI_Igatherv(local.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                            handles_->world, &handles_->request));
  complete("gather");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  return out;
}

void MpiControlChannel::broadcast_bytes(std::vector<char>& bytes, int root) {
  long size = static_cast<long>(bytes.size());
  MT_MPI_CHECK(MPI_Ibcast(&size, 1, MPI_LONG, root, handles_->world, &handles_->request));
  complete("broadcast");
  bytes.resize(static_cast<std::size_t>(size));
  MT_MPI_CHECK(MPI_Ibcast(bytes.data(), static_cast<int>(size), MPI_BYTE, root, handles_->world, &handles_->request));
  complete("broadcast");
}

std::vector<std::string> MpiControlChannel::hostnames() {
  constexpr int kWidth = 256;
  std::string mine = local_hostname();
  mine.resize(kWidth - 1);
  std::vector<char> all(static_cast<std::size_t>(kWidth) * world_size_);
  std::vector<char> send(mine.begin(), mine.end());
  send.push_back('\0');
  MT_MPI_CHECK(
      MPI_Iallgather(send.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, handles_->world, &handles_->request));
  complete("all-gather");
  std::vector<std::string> out;
  for (int r = 0; r < world_size_; ++r) out.emplace_back(all.data() + static_cast<long>(r) * kWidth);
  return out;
}

}  // namespace mt
