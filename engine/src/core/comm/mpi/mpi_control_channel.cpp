#include "core/comm/mpi/mpi_control_channel.h"

#include <mpi.h>

#include "core/comm/mpi/mpi_check.h"
#include "core/process/job_abort.h"

namespace mt {

struct MpiControlChannel::Handles {
  MPI_Comm world = MPI_COMM_NULL;
};

namespace {

double reduce_scalar(MPI_Comm comm, double value, MPI_Op op) {
  double out = 0;
  MT_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm));
  return out;
}

}  // namespace

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

void MpiControlChannel::barrier() { MT_MPI_CHECK(MPI_Barrier(handles_->world)); }
double MpiControlChannel::max(double value) { return reduce_scalar(handles_->world, value, MPI_MAX); }
double MpiControlChannel::min(double value) { return reduce_scalar(handles_->world, value, MPI_MIN); }
double MpiControlChannel::sum(double value) { return reduce_scalar(handles_->world, value, MPI_SUM); }

void MpiControlChannel::sum(std::vector<double>& values) {
  MT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                             MPI_DOUBLE, MPI_SUM, handles_->world));
}

std::vector<std::vector<double>> MpiControlChannel::gather_to_root(const std::vector<double>& local) {
  const int n = static_cast<int>(local.size());
  std::vector<double> flat(rank_ == 0 ? static_cast<std::size_t>(n) * world_size_ : 0);
  MT_MPI_CHECK(MPI_Gather(local.data(), n, MPI_DOUBLE, flat.data(), n, MPI_DOUBLE, 0,
                          handles_->world));
  std::vector<std::vector<double>> out;
  if (rank_ != 0) return out;
  for (int r = 0; r < world_size_; ++r)
    out.emplace_back(flat.begin() + static_cast<long>(r) * n, flat.begin() + static_cast<long>(r + 1) * n);
  return out;
}

std::vector<std::string> MpiControlChannel::gather_text_to_root(const std::string& local) {
  const int length = static_cast<int>(local.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(world_size_) : 0);
  MT_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, handles_->world));
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  MT_MPI_CHECK(MPI_Gatherv(local.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                           handles_->world));
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r) out.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  return out;
}

void MpiControlChannel::broadcast_bytes(std::vector<char>& bytes, int root) {
  long size = static_cast<long>(bytes.size());
  MT_MPI_CHECK(MPI_Bcast(&size, 1, MPI_LONG, root, handles_->world));
  bytes.resize(static_cast<std::size_t>(size));
  MT_MPI_CHECK(MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_BYTE, root, handles_->world));
}

std::vector<std::string> MpiControlChannel::hostnames() {
  constexpr int kWidth = 256;
  std::string mine = local_hostname();
  mine.resize(kWidth - 1);
  std::vector<char> all(static_cast<std::size_t>(kWidth) * world_size_);
  std::vector<char> send(mine.begin(), mine.end());
  send.push_back('\0');
  MT_MPI_CHECK(MPI_Allgather(send.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR,
                             handles_->world));
  std::vector<std::string> out;
  for (int r = 0; r < world_size_; ++r) out.emplace_back(all.data() + static_cast<long>(r) * kWidth);
  return out;
}

}  // namespace mt
