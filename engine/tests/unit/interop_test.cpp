// Names between the engine and nanoGPT, checkpoint layouts of sharded and whole parameters, and the
// safetensors reader's refusals of damaged files.
#include "torch_doctest.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/job/input_error.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/tensor_layout.h"
#include "training/interop/nanogpt_names.h"
#include "training/interop/safetensors.h"
#include "training/model/gpt.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch_file(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mt_interop_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// A file of one 8-byte header length, `header` and `data` bytes.
fs::path raw_safetensors(const std::string& name, const std::string& header, std::size_t data) {
  const auto path = scratch_file(name);
  std::ofstream out(path, std::ios::binary);
  const uint64_t length = header.size();
  out.write(reinterpret_cast<const char*>(&length), 8);
  out << header << std::string(data, '\0');
  return path;
}

std::string refusal(const fs::path& path) {
  try {
    mt::read_safetensors_index(path);
  } catch (const mt::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every parameter of the GPT has a nanoGPT name, and the names map back") {
  mt::ModelConfig config;
  config.vocab_size = 64, config.d_model = 16, config.n_heads = 2, config.n_layers = 11, config.seq_length = 8;
  auto model = mt::make_gpt(config, 1);
  for (const auto& item : model->named_parameters()) {
    const auto name = mt::nanogpt_name(item.key());
    REQUIRE_MESSAGE(name, item.key());
    CHECK(mt::engine_name(*name) == item.key());
  }
  CHECK(mt::nanogpt_name("blocks.10.attention.qkv.weight") == "transformer.h.10.attn.c_attn.weight");
  CHECK(mt::nanogpt_name("token_embedding.weight") == "transformer.wte.weight");
  CHECK(mt::engine_name("transformer.h.3.mlp.c_proj.bias") == "blocks.3.fc_out.bias");
  CHECK_FALSE(mt::engine_name("transformer.h.03.ln_1.weight"));  // not a block index
  CHECK_FALSE(mt::engine_name("transformer.h.1.ln_1.scale"));
  CHECK_FALSE(mt::engine_name("lm_head.weight"));  // tied: carried as the embedding
}

TEST_CASE("a parameter inside sharded flat buffers is split where the shards split") {
  // 10 elements from offset 5 of a unit cut into shards of 6: ranks 0, 1 and 2 hold 1, 6 and 3.
  const auto layout =
      mt::make_checkpoint_layout({{"p", {2, 5}}, {"q", {3}}}, {{"model/unit_1", 5, 6}, {"model/w", 0, 0}},
                                 {{"model/unit_0", 6}, {"model/unit_1", 6}, {"model/w", 3}}, 3);
  const auto& p = layout.parameters[0].pieces;
  REQUIRE(p.size() == 3);
  CHECK(p[0].rank == 0);
  CHECK(p[0].offset == 5);
  CHECK(p[0].numel == 1);
  CHECK(p[0].moment_offset == 6 + 5);  // after unit_0's 6 moments on that rank
  CHECK(p[1].rank == 1);
  CHECK(p[1].offset == 0);
  CHECK(p[1].numel == 6);
  CHECK(p[1].at == 1);
  CHECK(p[2].rank == 2);
  CHECK(p[2].numel == 3);
  CHECK(p[2].at == 7);
  const auto& q = layout.parameters[1].pieces;  // whole, from rank 0
  REQUIRE(q.size() == 1);
  CHECK(q[0].rank == 0);
  CHECK(q[0].moment_offset == 12);

  const auto back = mt::layout_from_json(mt::to_json(layout), 3);
  CHECK(mt::to_json(back) == mt::to_json(layout));
  CHECK_THROWS_AS(mt::layout_from_json(mt::to_json(layout), 2), mt::CheckpointError);  // rank 2 of 2
  auto gap = mt::to_json(layout);
  gap["parameters"][0]["pieces"].erase(1);
  CHECK_THROWS_WITH_AS(mt::layout_from_json(gap, 3), "layout of p: pieces do not cover its elements in order",
                       mt::CheckpointError);
}

TEST_CASE("safetensors files round-trip, and damaged ones are refused with what is wrong") {
  const auto path = scratch_file("ok.safetensors");
  torch::manual_seed(3);
  const auto a = torch::randn({3, 4}), b = torch::arange(5, torch::TensorOptions().dtype(torch::kLong));
  mt::write_safetensors(path, {{"a", a}, {"b", b}}, {{"k", "v"}});
  const auto back = mt::read_safetensors(path);
  CHECK(torch::equal(back.at("a"), a));
  CHECK(torch::equal(back.at("b"), b));
  CHECK(mt::read_safetensors_index(path).metadata.at("k") == "v");

  CHECK(refusal(raw_safetensors("empty.safetensors", "{}", 0)).empty());
  CHECK(refusal(raw_safetensors("notjson.safetensors", "{x", 0)).find("header is not JSON") != std::string::npos);
  CHECK(refusal(raw_safetensors("dtype.safetensors", R"({"t":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}})", 1))
            .find("dtype 'Q8' is not supported") != std::string::npos);
  CHECK(refusal(raw_safetensors("short.safetensors", R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8))
            .find("outside the 8 data bytes") != std::string::npos);
  CHECK(refusal(raw_safetensors("shape.safetensors", R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8))
            .find("needs 12 bytes, its range holds 8") != std::string::npos);
  CHECK(refusal(raw_safetensors("overlap.safetensors",
                                R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                R"("u":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                                12))
            .find("overlap") != std::string::npos);
  std::ofstream(scratch_file("tiny.safetensors")) << "abc";
  CHECK(refusal(scratch_file("tiny.safetensors")).find("shorter than its 8-byte header length") != std::string::npos);
  fs::remove_all(path.parent_path());
}
