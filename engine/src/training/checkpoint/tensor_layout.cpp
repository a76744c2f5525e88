#include "training/checkpoint/tensor_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/job/whole_numbers.h"
#include "training/checkpoint/checkpoint_error.h"

namespace mt {
namespace {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// A parameter's elements [begin, begin + numel) of a flat tensor cut into shards of `shard`
// elements: one piece per rank whose shard they touch.
std::vector<TensorPiece> sharded_pieces(const ParameterPlacement& placement, int64_t numel, int64_t moment_base) {
  std::vector<TensorPiece> out;
  const int64_t shard = placement.shard_numel, begin = placement.offset, end = begin + numel;
  for (int64_t r = begin / shard; r * shard < end; ++r) {
    const int64_t lo = std::max(begin, r * shard), hi = std::min(end, (r + 1) * shard);
    out.push_back(
        {static_cast<int>(r), placement.tensor, lo - r * shard, hi - lo, lo - begin, moment_base + lo - r * shard});
  }
  return out;
}

}  // namespace

int64_t LogicalTensor::numel() const { return element_count(shape); }

CheckpointLayout make_checkpoint_layout(const std::vector<ParameterShape>& parameters,
                                        const std::vector<ParameterPlacement>& placements,
                                        const std::vector<std::pair<std::string, int64_t>>& saved, int world_size) {
  if (parameters.size() != placements.size())
    throw std::logic_error("checkpoint layout: one placement per parameter expected");
  std::map<std::string, int64_t> moment_base;  // where each saved tensor starts in the moments
  int64_t total = 0;
  for (const auto& [name, numel] : saved) {
    moment_base[name] = total;
    total += numel;
  }
  CheckpointLayout layout;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& placement = placements[i];
    auto base = moment_base.find(placement.tensor);
    if (base == moment_base.end())
      throw std::logic_error("checkpoint layout: " + parameters[i].name + " placed in unsaved " + placement.tensor);
    LogicalTensor t{parameters[i].name, parameters[i].shape, {}};
    if (placement.shard_numel == 0) {
      t.pieces.push_back({0, placement.tensor, placement.offset, t.numel(), 0, base->second + placement.offset});
    } else {
      t.pieces = sharded_pieces(placement, t.numel(), base->second);
    }
    for (const auto& piece : t.pieces)
      if (piece.rank >= world_size) throw std::logic_error("checkpoint layout: piece beyond the last rank");
    layout.parameters.push_back(std::move(t));
  }
  return layout;
}

nlohmann::json to_json(const CheckpointLayout& layout) {
  auto parameters = nlohmann::json::array();
  for (const auto& t : layout.parameters) {
    auto pieces = nlohmann::json::array();
    for (const auto& p : t.pieces)
      pieces.push_back({{"rank", p.rank},
                        {"tensor", p.tensor},
                        {"offset", p.offset},
                        {"numel", p.numel},
                        {"at", p.at},
                        {"moment_offset", p.moment_offset}});
    parameters.push_back({{"name", t.name}, {"shape", t.shape}, {"pieces", pieces}});
  }
  return {{"parameters", parameters}};
}

CheckpointLayout layout_from_json(const nlohmann::json& json, int world_size) {
  CheckpointLayout layout;
  try {
    constexpr int64_t kMost = int64_t(1) << 62;  // elements or offsets: sums of two stay in range
    for (const auto& p : json.at("parameters")) {
      const std::string name = p.at("name").get<std::string>();
      // What is wrong with a number is said of its parameter.
      auto whole = [&](const nlohmann::json& value, const char* what, int64_t lowest, int64_t highest) {
        try {
          return whole_number(value, what, lowest, highest);
        } catch (const InputError& e) {
          throw CheckpointError(fmt::format("layout of {}: {}", name, e.what()));
        }
      };
      LogicalTensor t{name, {}, {}};
      for (const auto& d : p.at("shape")) t.shape.push_back(whole(d, "dimension", 0, kMost));
      int64_t elements = 1;
      for (auto d : t.shape) {
        if (d > 0 && elements > kMost / d)
          throw CheckpointError(fmt::format("layout of {}: more than 2^62 elements", name));
        elements *= d;
      }
      int64_t covered = 0;
      for (const auto& q : p.at("pieces")) {
        const int64_t rank = whole(q.at("rank"), "rank", 0, kMost);
        if (rank >= world_size)
          throw CheckpointError(fmt::format("layout of {}: rank {} outside a world of {}", name, rank, world_size));
        TensorPiece piece{int(rank),
                          q.at("tensor").get<std::string>(),
                          whole(q.at("offset"), "offset", 0, kMost),
                          whole(q.at("numel"), "numel", 1, kMost),
                          whole(q.at("at"), "at", 0, kMost),
                          whole(q.at("moment_offset"), "moment_offset", 0, kMost)};
        if (piece.at != covered || piece.numel > kMost - covered)
          throw CheckpointError(fmt::format("layout of {}: pieces do not cover its elements in order", name));
        covered += piece.numel;
        t.pieces.push_back(std::move(piece));
      }
      if (covered != elements)
        throw CheckpointError(fmt::format("layout of {}: pieces cover {} of its {} elements", name, covered, elements));
      layout.parameters.push_back(std::move(t));
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError(std::string("checkpoint layout is damaged: ") + e.what());
  }
  return layout;
}

}  // namespace mt
