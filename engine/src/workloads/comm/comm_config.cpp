#include "workloads/comm/comm_config.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>
#include <stdexcept>

#include "core/comm/backends.h"
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> all_op_names() {
  std::vector<std::string> names;
  for (const auto* bench : collective_benches()) names.push_back(bench->name());
  return names;
}

constexpr long long kMaxMessageBytes = 1LL << 33;  // 8 GiB

Option bytes_option(std::string flag, int64_t& target, std::string help) {
  Option o{std::move(flag), OptionType::integer, std::move(help), &target};
  o.minimum = 4;
  o.maximum = double(kMaxMessageBytes);
  return o;
}

}  // namespace

OptionTable comm_option_table(CommConfig& c) {
  OptionTable t;
  auto& o = t.options;
  o.push_back(Option{
      "ops", OptionType::text,
      fmt::format("collectives to measure, comma-separated, or all ({})", fmt::join(all_op_names(), ", ")), &c.ops});
  o.push_back(bytes_option("min-bytes", c.min_bytes, "smallest message, bytes"));
  o.push_back(bytes_option("max-bytes", c.max_bytes, "largest message, bytes"));
  {
    Option factor{"step-factor", OptionType::number, "each message this many times the last", &c.step_factor};
    factor.minimum = 1;
    factor.exclusive_minimum = true;
    o.push_back(factor);
  }
  o.push_back(Option{"sizes", OptionType::text,
                     "explicit message sizes in bytes, comma-separated (instead of the sweep)", &c.sizes});
  {
    Option warmup{"warmup", OptionType::integer, "untimed iterations per size", &c.warmup};
    warmup.minimum = 0;
    o.push_back(warmup);
    Option iters{"iters", OptionType::integer, "timed iterations per size", &c.iters};
    iters.minimum = 1;
    o.push_back(iters);
    Option timed{"timed-bytes", OptionType::integer,
                 "more timed iterations for small messages: at least this many bytes per size (0: --iters alone)",
                 &c.timed_bytes};
    timed.minimum = 0;
    o.push_back(timed);
  }
  {
    Option placement{"placement", OptionType::choice, "in-place, out-of-place buffers, or both where supported",
                     &c.placement};
    placement.choices = {"in_place", "out_of_place", "both"};
    o.push_back(placement);
    Option split{"split", OptionType::choice, "all_to_all block sizes: equal, uneven (e + (r + p) mod n), or both",
                 &c.split};
    split.choices = {"equal", "uneven", "both"};
    o.push_back(split);
  }
  add_job_options(o, c.job);
  t.constraints = {{"min-bytes", "max-bytes", Relation::at_most}};
  return t;
}

std::vector<int64_t> message_sizes(const CommConfig& c) {
  std::vector<int64_t> sizes;
  if (!c.sizes.empty()) {
    const std::vector<std::string> items = split_list(c.sizes);
    if (items.empty()) throw std::invalid_argument(fmt::format("--sizes '{}' names no size", c.sizes));
    // A list with a hole ("1024,,4096") lost a size in editing: say so rather than measure the rest.
    if (c.sizes.front() == ',' || c.sizes.back() == ',' || c.sizes.find(",,") != std::string::npos)
      throw std::invalid_argument(fmt::format("--sizes '{}' has an empty item between commas", c.sizes));
    for (const auto& item : items) {
      char* end = nullptr;
      const long long v = std::strtoll(item.c_str(), &end, 10);
      if (*end != '\0' || v < 4)
        throw std::invalid_argument(fmt::format("--sizes: '{}' is not a size of at least 4 bytes", item));
      if (v > kMaxMessageBytes)
        throw std::invalid_argument(fmt::format("--sizes: {} is larger than 8 GiB ({})", item, kMaxMessageBytes));
      if (std::find(sizes.begin(), sizes.end(), v) != sizes.end())
        throw std::invalid_argument(fmt::format("--sizes: {} is given twice (each size is measured once)", v));
      sizes.push_back(v);
    }
    return sizes;
  }
  for (double bytes = static_cast<double>(c.min_bytes); bytes <= static_cast<double>(c.max_bytes) * (1 + 1e-9);
       bytes *= c.step_factor)
    sizes.push_back(static_cast<int64_t>(bytes));
  return sizes;
}

std::vector<std::string> selected_ops(const CommConfig& c) {
  if (c.ops == "all") return all_op_names();
  std::vector<std::string> ops;
  for (const auto& name : split_list(c.ops)) {
    if (!find_collective_bench(name))
      throw std::invalid_argument(
          fmt::format("--ops: unknown collective '{}' (known: {})", name, fmt::join(all_op_names(), ", ")));
    ops.push_back(name);
  }
  if (ops.empty()) throw std::invalid_argument("--ops names no collective");
  return ops;
}

std::optional<std::string> validate(const CommConfig& config) {
  CommConfig copy = config;
  if (auto problem = check_options(comm_option_table(copy))) return problem;
  try {
    message_sizes(config);
    selected_ops(config);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  for (const auto& entry : backend_table())
    if (config.job.backend == entry.name && !entry.available)
      return fmt::format("--backend {} is not supported in this build (supported: {})", config.job.backend,
                         available_backends());
  return std::nullopt;
}

}  // namespace mt
