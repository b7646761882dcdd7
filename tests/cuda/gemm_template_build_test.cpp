// The Hopper GEMM templates (tasks/gemm_bf16, gemm_bf16_residual, gemm_bf16_bias_gelu, gemm_bf16_gate_up_silu,
// gemm_fp8_rowwise, gemm_fp8_tensorwise: wgmma_cuda, and tma_cuda, slices loaded by TMA, with a persistent tile walk)
// without a GPU: the knob constraints reject what cannot run (shared
// memory past 227 KiB, more than 128 accumulators a thread), the allowed configurations build through NVRTC for sm_90a
// with no spills and a fraction of a second each, and the SASS holds HGMMA (QGMMA for fp8); the tma_cuda templates' decode
// path (DECODE_M) builds, multiplies by mma.sync, and is launched exactly where the kernel takes it; their multicast
// (MULTICAST) loads the weight once a cluster and is launched in whole clusters.
// A sample of the allowed configurations by default (CI's time); KERNELARC_GEMM_ALL_CONFIGURATIONS=1 builds every one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "engine/composition.h"
#include "judge/build_cache.h"
#include "judge/cuda/cuda_compiler.h"
#include "task/dtype.h"
#include "task/knob_grid.h"
#include "task/task.h"
#include "task/task_library.h"

namespace {

namespace fs = std::filesystem;
using kernelarc::judge::read_text_file;
using kernelarc::judge::cuda::CudaCompiler;
using kernelarc::judge::cuda::CudaCompilerOptions;
using kernelarc::task::KnobValues;
using ::testing::HasSubstr;

constexpr std::int64_t kSharedLimit = 227 * 1024;

// A test's parameter: "TASK" (its wgmma_cuda template) or "TASK/TEMPLATE".
std::string task_of(const std::string& parameter) { return parameter.substr(0, parameter.find('/')); }
std::string template_of(const std::string& parameter) {
  const auto slash = parameter.find('/');
  return slash == std::string::npos ? "wgmma_cuda" : parameter.substr(slash + 1);
}

const kernelarc::task::Template& gemm_template(const kernelarc::task::Task& task, const std::string& name) {
  const auto& templates = task.definition.templates;
  const auto found = std::find_if(templates.begin(), templates.end(), [&](const auto& t) { return t.name == name; });
  if (found == templates.end()) throw std::runtime_error(task.definition.name + " has no " + name + " template");
  return *found;
}

// The tile grid's knobs: all but the decode path's block shape (DECODE_DEPTH, DECODE_WARPS, DECODE_SM_BLOCKS), which
// shapes only the decode blocks, so the tile grid holds it at its defaults and decode_grid sweeps it.
bool in_tile_grid(const std::string& name) { return name != "DECODE_DEPTH" && name != "DECODE_WARPS" && name != "DECODE_SM_BLOCKS"; }
// The decode grid's knobs: DECODE_M, DECODE_TILES, the decode shape and CONSUMERS (the launch bounds).
bool in_decode_grid(const std::string& name) { return name.starts_with("DECODE_") || name == "CONSUMERS"; }

using SweptKnobs = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

// The knobs of `tmpl` that `in` takes, each with all of its values.
SweptKnobs knobs_in(const kernelarc::task::Template& tmpl, bool (*in)(const std::string&)) {
  SweptKnobs swept;
  for (const auto& knob : tmpl.knobs)
    if (in(knob.name)) swept.emplace_back(knob.name, knob.values);
  return swept;
}

// The configurations, allowed or not, of sweeping `swept`.
std::size_t combinations_of(const SweptKnobs& swept) {
  std::size_t combinations = 1;
  for (const auto& [name, values] : swept) combinations *= values.size();
  return combinations;
}

// The tile grid: each knob but the decode shape's over all of its values, expanded a value of the first two knobs at a
// time (the tma_cuda grids pass a sweep's limit, kMaxGridSize).
kernelarc::task::KnobGrid whole_grid(const kernelarc::task::Template& tmpl) {
  SweptKnobs swept = knobs_in(tmpl, in_tile_grid);
  kernelarc::task::KnobGrid grid;
  const auto firsts = swept[0].second, seconds = swept[1].second;
  for (const std::int64_t first : firsts)
    for (const std::int64_t second : seconds) {
      swept[0].second = {first}, swept[1].second = {second};
      auto part = kernelarc::task::expand_knob_grid(tmpl, swept);
      grid.configurations.insert(grid.configurations.end(), part.configurations.begin(), part.configurations.end());
      grid.skipped.insert(grid.skipped.end(), part.skipped.begin(), part.skipped.end());
    }
  return grid;
}

// The decode grid: its knobs over all of their values, the other knobs at their defaults; empty for a template without
// a decode path.
kernelarc::task::KnobGrid decode_grid(const kernelarc::task::Template& tmpl) {
  const SweptKnobs swept = knobs_in(tmpl, in_decode_grid);
  if (swept.size() < 2) return {};
  return kernelarc::task::expand_knob_grid(tmpl, swept);
}

// Bytes of one value of the multiplied operands (the task's first input): 2 for bf16, 1 for fp8.
std::int64_t operand_bytes(const kernelarc::task::Task& task) { return kernelarc::task::dtype_bits(task.definition.inputs.front().dtype) / 8; }

// The tensor-core instruction the default configuration's SASS must hold: Hopper's HGMMA for bf16, QGMMA for fp8 e4m3.
std::string expected_mma(const kernelarc::task::Task& task, std::int64_t block_n) {
  return operand_bytes(task) == 1 ? fmt::format("QGMMA.64x{}x32.F32.E4M3.E4M3", block_n) : fmt::format("HGMMA.64x{}x16.F32.BF16", block_n);
}

// `knobs` with `changes` made to the knobs the template has (gate-up's tile has no EPILOGUE or DECODE_M, say).
KnobValues with(KnobValues knobs, const std::vector<std::pair<std::string, std::int64_t>>& changes) {
  for (const auto& [name, value] : changes)
    if (knobs.contains(name)) knobs[name] = value;
  return knobs;
}

std::string describe(const KnobValues& knobs) {
  std::string text;
  for (const auto& [name, value] : knobs) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

class TemporaryCache {
 public:
  TemporaryCache() {
    std::string pattern = (fs::temp_directory_path() / "kernelarc-gemm-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp");
    path_ = pattern;
  }
  ~TemporaryCache() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// nvdisasm: $KERNELARC_NVDISASM, on PATH, in the toolkit, or from PyPI's nvidia-cuda-nvdisasm (scripts/setup); empty if none.
std::string find_nvdisasm() {
  if (const char* given = std::getenv("KERNELARC_NVDISASM"); given && *given) return given;
  for (const char* candidate : {"/usr/local/cuda/bin/nvdisasm", "/usr/bin/nvdisasm"})
    if (fs::exists(candidate)) return candidate;
  const auto which = kernelarc::common::run_command({"sh", "-c", "command -v nvdisasm"}, std::chrono::seconds(10));
  if (which.ok() && !which.output.empty()) return which.output.substr(0, which.output.find('\n'));
  const auto pip = kernelarc::common::run_command(
      {"python3", "-c", "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13', 'bin', 'nvdisasm'))"},
      std::chrono::seconds(30));
  if (pip.ok()) {
    const std::string path = pip.output.substr(0, pip.output.find('\n'));
    if (fs::exists(path)) return path;
  }
  return "";
}

// No local memory: none for wgmma's tile. The mma.sync tile (MMA 1, a B200's path) may keep a 64-bit value or two of
// the shared prologue (a tile's origin) in local memory at the largest tiles, loaded once by the consumers: 32 bytes at most.
void expect_no_spills(const nlohmann::json& kernel, const KnobValues& knobs) {
  const std::int64_t allowed = knobs.contains("MMA") && knobs.at("MMA") == 1 ? 32 : 0;
  EXPECT_LE(kernel.value("spill_store_bytes", -1), allowed) << describe(knobs) << ": " << kernel.dump();
  EXPECT_GE(kernel.value("spill_store_bytes", -1), 0) << describe(knobs) << ": " << kernel.dump();
  EXPECT_LE(kernel.value("stack_bytes", -1), allowed) << describe(knobs) << ": " << kernel.dump();
  EXPECT_GE(kernel.value("stack_bytes", -1), 0) << describe(knobs) << ": " << kernel.dump();
}

class GemmTemplateTest : public ::testing::TestWithParam<std::string> {
 protected:
  // The SASS of the template built at `knobs` through NVRTC for `architecture`, disassembled by `nvdisasm`.
  void disassemble(const std::string& nvdisasm, const KnobValues& knobs, std::string& sass,
                   const std::string& architecture = "sm_90a") const {
    disassemble_source(nvdisasm, read_text_file(template_().source), knobs, {"-c"}, sass, architecture);
  }

  // nvdisasm's output for `source` built with `knobs`: with "-c" the code alone, without it every section (each kernel's
  // .nv.info attributes among them).
  static void disassemble_source(const std::string& nvdisasm, const std::string& source, const KnobValues& knobs,
                                 const std::vector<std::string>& options, std::string& sass, const std::string& architecture = "sm_90a") {
    const TemporaryCache cache;
    CudaCompilerOptions compiler_options;
    compiler_options.cache_directory = cache.path();
    compiler_options.architecture = architecture;
    const CudaCompiler compiler(compiler_options);
    const auto built = compiler.build_kernel({source, {}, knobs});
    ASSERT_TRUE(built.ok) << built.diagnostics.substr(0, 4000);
    std::vector<std::string> command{nvdisasm};
    command.insert(command.end(), options.begin(), options.end());
    command.push_back(built.library.string());
    const auto disassembled = kernelarc::common::run_command(command, std::chrono::seconds(60), std::size_t{64} << 20);  // every section
    ASSERT_TRUE(disassembled.ok()) << nvdisasm << ": " << disassembled.describe() << "\n" << disassembled.output.substr(0, 2000);
    sass = disassembled.output;
  }

  const kernelarc::task::Template& template_() const { return gemm_template(task_, template_of(GetParam())); }

  kernelarc::task::Task task_ = kernelarc::task::load_task(fs::path(KERNELARC_TASKS) / task_of(GetParam()));
};

// The constraints keep exactly the configurations whose shared memory fits and whose tile the warpgroups can hold.
TEST_P(GemmTemplateTest, TheConstraintsRejectWhatCannotRun) {
  const auto& tmpl = template_();
  auto grid = whole_grid(tmpl);
  const auto decode = decode_grid(tmpl);
  const std::size_t combinations = combinations_of(knobs_in(tmpl, in_tile_grid));
  const std::size_t decode_combinations = decode.configurations.empty() ? 0 : combinations_of(knobs_in(tmpl, in_decode_grid));
  EXPECT_EQ(grid.configurations.size() + grid.skipped.size(), combinations);
  EXPECT_EQ(decode.configurations.size() + decode.skipped.size(), decode_combinations);
  grid.configurations.insert(grid.configurations.end(), decode.configurations.begin(), decode.configurations.end());
  grid.skipped.insert(grid.skipped.end(), decode.skipped.begin(), decode.skipped.end());
  EXPECT_GE(grid.configurations.size(), 100u) << "a space worth searching";
  EXPECT_FALSE(grid.skipped.empty());
  const std::int64_t bytes = operand_bytes(task_);
  const auto rule_allows = [bytes](const KnobValues& k) {
    const auto at = [&](const char* name) { return k.at(name); };
    const std::int64_t ring = at("STAGES") * (at("BM") + at("BN")) * at("BK") * bytes;
    const bool pingpong = k.count("PINGPONG") && at("PINGPONG") == 1;  // the warpgroups take turns, a whole tile each
    const std::int64_t epilogue = k.count("EPILOGUE") ? at("EPILOGUE") : 0;  // gate-up has none
    // The whole tile staged (1), or slabs of 64 columns (2): a staging area each.
    const std::int64_t staged_columns = epilogue == 1 ? at("BN") : epilogue == 2 ? 64 : -8;
    const std::int64_t staging = at("BM") * (staged_columns + 8) * 2 * (pingpong ? 2 : 1);
    const std::int64_t partials = (at("SPLIT_K") > 1) * at("BM") * at("BN") * 4;  // the fp32 sums a split leaves its cluster
    const bool persistent = k.count("PERSISTENT") && at("PERSISTENT") == 1;  // the staging beside the ring, whole tiles only
    if (pingpong && (!persistent || at("CONSUMERS") != 2 || at("MULTICAST") != 1)) return false;
    if (epilogue == 2 && ((k.count("MMA") && at("MMA") == 1) || at("BN") % 64 != 0)) return false;  // slabs: wgmma's, of 64
    const std::int64_t shared =
        (persistent ? std::max(ring + staging, partials) : std::max({ring, staging, partials})) + 1024 + 16 * at("STAGES");
    if (persistent && at("SPLIT_K") > 1) return false;
    if (k.count("MULTICAST") && at("MULTICAST") > 1 && at("SPLIT_K") > 1) return false;  // one cluster: shared weight or split K
    if (k.count("DECODE_M")) {  // no decode path: one setting of its knobs; deeper loads than slices spill; the launch bounds
      const std::int64_t depth = k.count("DECODE_DEPTH") ? at("DECODE_DEPTH") : 1;  // fp8's decode path has no deeper loads
      if (at("DECODE_M") == 0 && (at("DECODE_TILES") != 2 || depth != 1 || at("DECODE_WARPS") != 4 || at("DECODE_SM_BLOCKS") != 0))
        return false;
      if (depth > at("DECODE_TILES") || at("DECODE_WARPS") > 4 * (at("CONSUMERS") + 1)) return false;
    }
    const std::int64_t rows = pingpong ? at("BM") : at("BM") / at("CONSUMERS");  // a consumer warpgroup's
    const std::int64_t accumulators = bytes == 1 ? 64 : 128;  // fp8's sums are promoted each k tile: a second set of registers
    return at("BM") % (64 * at("CONSUMERS")) == 0 && rows / 64 * at("BN") / 2 <= accumulators && at("BK") * bytes % 128 == 0 &&
           shared <= kSharedLimit;
  };
  for (const auto& knobs : grid.configurations) EXPECT_TRUE(rule_allows(knobs)) << describe(knobs);
  for (const auto& skipped : grid.skipped) EXPECT_FALSE(rule_allows(skipped.knobs)) << describe(skipped.knobs);
  kernelarc::task::Bindings names;
  for (const auto& [name, value] : kernelarc::task::default_knobs(tmpl)) names[name] = static_cast<double>(value);
  names["M"] = 4096, names["N"] = 4096, names["K"] = 4096;
  EXPECT_LE(tmpl.launch->shared_bytes->evaluate_integer(kernelarc::task::launch_bindings(*tmpl.launch, names)), kSharedLimit);
  std::cout << GetParam() << ": " << grid.configurations.size() << " of " << combinations + decode_combinations
            << " configurations allowed (the tile grid and the decode grid)\n";
}

// Allowed configurations build through NVRTC for sm_90a, without spills, a stack frame or serialised wgmma: every 31st
// of the grid (127th for the epilogue tasks; odd strides reach every split count), the default at each split count, or
// all of them with KERNELARC_GEMM_ALL_CONFIGURATIONS=1 (CI's time). The build time of each is reported.
TEST_P(GemmTemplateTest, AllowedConfigurationsBuildForSm90aWithoutSpills) {
  const auto& tmpl = template_();
  const auto grid = whole_grid(tmpl);
  const char* all = std::getenv("KERNELARC_GEMM_ALL_CONFIGURATIONS");
  // The decode knobs of the tile grid (DECODE_M, DECODE_TILES) give each tile configuration the same number of settings,
  // decode off among them: that many times the stride samples tile configurations with decode off; the decode path's
  // settings are sampled below.
  const auto decode_off = std::count_if(grid.configurations.begin(), grid.configurations.end(),
                                        [](const KnobValues& k) { return !k.contains("DECODE_M") || k.at("DECODE_M") == 0; });
  const std::size_t decode_settings = grid.configurations.size() / static_cast<std::size_t>(decode_off);
  const std::size_t stride = all && std::string(all) == "1" ? 1 : (GetParam() == "gemm_bf16" ? 31 : 127) * decode_settings;
  std::vector<KnobValues> sample;
  for (const std::int64_t split : {1, 2, 4, 8}) {
    auto knobs = kernelarc::task::default_knobs(tmpl);
    knobs["SPLIT_K"] = split;
    sample.push_back(knobs);
  }
  if (auto knobs = kernelarc::task::default_knobs(tmpl); knobs.contains("PERSISTENT")) {  // the tile walk, staged and not
    knobs["PERSISTENT"] = 1;
    for (const std::int64_t staged : {1, 0})  // the staging beside a 4-stage ring of 128 x 256 tiles would pass 227 KiB
      sample.push_back(with(knobs, {{"EPILOGUE", staged}, {"STAGES", staged ? 3 : 4}}));
    const auto epilogue = std::find_if(tmpl.knobs.begin(), tmpl.knobs.end(), [](const auto& knob) { return knob.name == "EPILOGUE"; });
    if (epilogue != tmpl.knobs.end() && std::ranges::count(epilogue->values, 2) > 0)  // slabs of 64 columns beside the 4-stage ring
      sample.push_back(with(knobs, {{"EPILOGUE", 2}, {"STAGES", 4}}));
  }
  if (auto knobs = kernelarc::task::default_knobs(tmpl); knobs.contains("MULTICAST")) {  // the shared weight, walked or not
    knobs["MULTICAST"] = 2;
    sample.push_back(knobs);
    sample.push_back(with(knobs, {{"PERSISTENT", 1}, {"EPILOGUE", 1}, {"STAGES", 3}}));
  }
  if (auto knobs = kernelarc::task::default_knobs(tmpl); knobs.contains("DECODE_M")) {  // every decode shape, then deeper
    for (const std::int64_t rows : {16, 32})
      for (const std::int64_t tiles : {1, 2, 4}) {
        knobs["DECODE_M"] = rows, knobs["DECODE_TILES"] = tiles;
        sample.push_back(knobs);
        if (tiles > 1) sample.push_back(with(knobs, {{"DECODE_DEPTH", 2}, {"DECODE_WARPS", 12}, {"DECODE_SM_BLOCKS", 2}}));
      }
  }
  for (std::size_t i = 0; i < grid.configurations.size(); i += stride) sample.push_back(grid.configurations[i]);
  const TemporaryCache cache;
  CudaCompilerOptions options;
  options.cache_directory = cache.path();
  ASSERT_EQ(options.architecture, "sm_90a");
  const CudaCompiler compiler(options);
  const std::string source = read_text_file(tmpl.source);
  std::vector<double> seconds;
  for (const auto& knobs : sample) {
    const auto built = compiler.build_kernel({source, {}, knobs});
    ASSERT_TRUE(built.ok) << describe(knobs) << ":\n" << built.diagnostics;
    ASSERT_TRUE(built.resources.contains(tmpl.launch->kernel)) << describe(knobs) << ": " << built.resources.dump();
    const auto& kernel = built.resources[tmpl.launch->kernel];
    expect_no_spills(kernel, knobs);
    // An epilogue that touches the accumulators the wrong way makes ptxas wait for every wgmma (C7514): a silent halving.
    EXPECT_FALSE(kernel.value("wgmma_serialized", true)) << describe(knobs) << ": " << kernel.dump();
    if (!built.cache_hit) seconds.push_back(built.seconds);
  }
  ASSERT_FALSE(seconds.empty());
  std::sort(seconds.begin(), seconds.end());
  double total = 0;
  for (const double s : seconds) total += s;
  std::cout << fmt::format("{}: {} builds for sm_90a, {:.3f} s median, {:.3f} to {:.3f} s, {:.1f} s in all\n", GetParam(),
                           seconds.size(), seconds[seconds.size() / 2], seconds.front(), seconds.back(), total);
  EXPECT_LT(seconds[seconds.size() / 2], 2.0) << "a candidate must build in a second or two, or no search is possible";
}

// The default configuration's SASS multiplies on the tensor cores' Hopper path (HGMMA), not HMMA or FFMA.
TEST_P(GemmTemplateTest, TheDefaultConfigurationsSassMultipliesOnHoppersTensorCores) {
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  const auto knobs = kernelarc::task::default_knobs(template_());
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
  EXPECT_THAT(sass, HasSubstr(expected_mma(task_, knobs.at("BN"))));
  EXPECT_THAT(sass, HasSubstr("SYNCS.PHASECHK")) << "the ring waits on mbarriers";
  EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDL"))) << "no local memory";
  // A template whose launch declares tensor maps loads through the copy engine (UTMALDG); the others through cp.async (LDGSTS).
  if (template_().launch->tensor_maps.empty()) {
    EXPECT_THAT(sass, HasSubstr("LDGSTS"));
    EXPECT_THAT(sass, ::testing::Not(HasSubstr("UTMALDG")));
  } else {
    EXPECT_THAT(sass, HasSubstr("UTMALDG.2D"));
    EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDGSTS")));
  }
}

// With SPLIT_K the blocks of a cluster meet at cluster barriers (UCGABAR in SASS) around the reduction of their sums.
TEST_P(GemmTemplateTest, ASplitKConfigurationMeetsItsClusterAtBarriers) {
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  auto knobs = kernelarc::task::default_knobs(template_());
  knobs["SPLIT_K"] = 4;
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
  EXPECT_THAT(sass, HasSubstr("UCGABAR_ARV"));
  EXPECT_THAT(sass, HasSubstr("UCGABAR_WAIT"));
  EXPECT_THAT(sass, HasSubstr(expected_mma(task_, knobs.at("BN"))));
}

// With DECODE_M the kernel also holds the decode path: the weight streamed by non-caching 16-byte loads into mma.sync
// (HMMA.16816 in SASS; sm_90a has no QMMA: fp8's m16n8k32 becomes two fp16 HMMA after an exact conversion), beside the
// tile's HGMMA or QGMMA.
class GemmDecodeTest : public GemmTemplateTest {};

TEST_P(GemmDecodeTest, ADecodeConfigurationStreamsTheWeightIntoMmaSync) {
  auto knobs = kernelarc::task::default_knobs(template_());
  ASSERT_TRUE(knobs.contains("DECODE_M")) << GetParam() << " has no decode path";
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  knobs["DECODE_M"] = 32, knobs["DECODE_TILES"] = 4;
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
  EXPECT_THAT(sass, HasSubstr(operand_bytes(task_) == 1 ? "HMMA.16816.F32 " : "HMMA.16816.F32.BF16"));
  EXPECT_THAT(sass, HasSubstr("LDG.E.NA.128.CONSTANT"));
  EXPECT_THAT(sass, HasSubstr(expected_mma(task_, knobs.at("BN"))));
  EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDL"))) << "no local memory";
}

// The launch rule takes the decode path (32 DECODE_WARPS threads, a block per 8 DECODE_TILES weight rows or
// DECODE_SM_BLOCKS blocks an SM walking them, the warps' sums in shared memory) exactly where the kernel does,
// M <= DECODE_M, and the tiles above it; the grid covers N (or walks it) in whole clusters.
TEST_P(GemmDecodeTest, TheLaunchRuleTakesTheDecodePathExactlyWhereTheKernelDoes) {
  const auto& launch = *template_().launch;
  for (const std::int64_t rows : {16, 32})
    for (const std::int64_t tiles : {1, 2, 4})
      for (const std::int64_t split : {1, 2})
        for (const auto& [warps, sm_blocks] : {std::pair<std::int64_t, std::int64_t>{4, 0}, {12, 2}, {8, 1}}) {
          kernelarc::task::Bindings names;
          for (const auto& [name, value] : kernelarc::task::default_knobs(template_())) names[name] = static_cast<double>(value);
          names["DECODE_M"] = rows, names["DECODE_TILES"] = tiles, names["SPLIT_K"] = split;
          names["DECODE_WARPS"] = static_cast<double>(warps), names["DECODE_SM_BLOCKS"] = static_cast<double>(sm_blocks);
          names["N"] = 5000, names["K"] = 4096;
          const auto tile_threads = static_cast<std::int64_t>(128 * (names["CONSUMERS"] + 1));
          const std::int64_t slices = (5000 + 8 * tiles - 1) / (8 * tiles);
          for (const std::int64_t m : {std::int64_t{1}, rows, rows + 1}) {
            names["M"] = static_cast<double>(m);
            const auto bound = kernelarc::task::launch_bindings(launch, names, 131);  // an odd SM count: whole clusters still
            const std::int64_t grid = launch.grid[0].evaluate_integer(bound), block = launch.block[0].evaluate_integer(bound);
            const std::int64_t shared = launch.shared_bytes->evaluate_integer(bound);
            const std::string where = fmt::format("DECODE_M={} DECODE_TILES={} SPLIT_K={} DECODE_WARPS={} DECODE_SM_BLOCKS={} M={}",
                                                  rows, tiles, split, warps, sm_blocks, m);
            if (m <= rows) {
              EXPECT_EQ(block, 32 * warps) << where;
              EXPECT_EQ(shared, warps * (rows / 16) * tiles * 128 * 4) << where << ": 512 bytes a fragment and warp";
              EXPECT_EQ(grid % split, 0) << where;
              const std::int64_t wanted = sm_blocks == 0 ? slices : std::min(slices, sm_blocks * 131);
              EXPECT_GE(grid, wanted) << where << (sm_blocks == 0 ? ": a block a slice" : ": the slices walked");
              EXPECT_LT(grid - split, wanted) << where << ": at most one cluster more";
              } else {
              EXPECT_EQ(block, tile_threads) << where;
              EXPECT_GT(shared, 64 * 1024) << where << ": the tile's ring";
            }
          }
        }
}

// BN 160: a hidden size of 2560 (problem 30's) in 16 whole tiles, so 1024 rows make 128 tiles for 132 SMs where 128 x 256
// tiles make 80 and 128 x 128 ones 160. One m64n160k16 wgmma spans the tile's columns (HGMMA.64x160x16 in SASS), without
// local memory, with the register epilogue and the staged one, split in a cluster or the weight multicast, the tile walk
// persistent or not.
class GemmWholeTilesOf2560Test : public GemmTemplateTest {};

TEST_P(GemmWholeTilesOf2560Test, A160ColumnTileMultipliesInOneWgmmaInEveryVariant) {
  const auto defaults = kernelarc::task::default_knobs(template_());
  const auto& bn = std::find_if(template_().knobs.begin(), template_().knobs.end(), [](const auto& k) { return k.name == "BN"; })->values;
  ASSERT_NE(std::find(bn.begin(), bn.end(), 160), bn.end()) << GetParam() << ": BN has no 160";
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  for (const auto& changes : std::vector<std::vector<std::pair<std::string, std::int64_t>>>{
           {}, {{"EPILOGUE", 0}}, {{"SPLIT_K", 2}}, {{"MULTICAST", 2}}, {{"PERSISTENT", 1}, {"STAGES", 3}}}) {
    auto knobs = with(defaults, changes);
    knobs["BN"] = 160;
    ASSERT_FALSE(kernelarc::task::broken_knob_constraint(template_(), knobs)) << describe(knobs);
    std::string sass;
    ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
    EXPECT_THAT(sass, HasSubstr("HGMMA.64x160x16.F32.BF16")) << describe(knobs);
    EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDL"))) << describe(knobs) << ": no local memory";
  }
}

// PINGPONG: the consumer warpgroups of a persistent block take turns (named barriers 4 and 5, bar.arrive to hand the turn
// over), each a whole tile of its own: wgmma of 64 x BN, every tile and epilogue variant without local memory; the
// constraints refuse it where a warpgroup's tile would not fit its registers, without PERSISTENT, or with multicast.
class GemmPingpongTest : public GemmTemplateTest {};

TEST_P(GemmPingpongTest, TwoWarpgroupsTakingTurnsBuildWithoutLocalMemory) {
  const auto defaults = kernelarc::task::default_knobs(template_());
  ASSERT_TRUE(defaults.contains("PINGPONG")) << GetParam();
  EXPECT_EQ(defaults.at("PINGPONG"), 0) << "off by default: the template's default kernel is unchanged";
  const auto refused = [&](std::vector<std::pair<std::string, std::int64_t>> changes) {
    return kernelarc::task::broken_knob_constraint(template_(), with(defaults, changes)).has_value();
  };
  EXPECT_TRUE(refused({{"PINGPONG", 1}, {"PERSISTENT", 0}, {"BN", 128}}));
  EXPECT_TRUE(refused({{"PINGPONG", 1}, {"PERSISTENT", 1}, {"BN", 256}})) << "128 x 256 a warpgroup: 256 accumulators a thread";
  EXPECT_TRUE(refused({{"PINGPONG", 1}, {"PERSISTENT", 1}, {"BN", 128}, {"MULTICAST", 2}}));
  EXPECT_TRUE(refused({{"PINGPONG", 1}, {"PERSISTENT", 1}, {"BN", 128}, {"BM", 64}, {"CONSUMERS", 1}})) << "one warpgroup takes no turns";
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  for (const auto& changes : std::vector<std::vector<std::pair<std::string, std::int64_t>>>{
           {{"BN", 128}}, {{"BN", 128}, {"EPILOGUE", 0}}, {{"BN", 64}, {"STAGES", 6}}}) {
    auto knobs = with(defaults, changes);
    knobs["PINGPONG"] = 1, knobs["PERSISTENT"] = 1;
    ASSERT_FALSE(kernelarc::task::broken_knob_constraint(template_(), knobs)) << describe(knobs);
    std::string sass;
    ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
    EXPECT_THAT(sass, HasSubstr(expected_mma(task_, knobs.at("BN")))) << describe(knobs);
    EXPECT_THAT(sass, HasSubstr("BAR.ARV")) << describe(knobs) << ": the turn handed over without waiting";
    EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDL"))) << describe(knobs) << ": no local memory";
  }
}

// With MULTICAST the blocks of a cluster each load a share of the weight slice into all of them (UTMALDG.2D.MULTICAST in
// SASS), meet at cluster barriers before their first load and before they leave, and release a stage in every block
// without a GPU-wide memory barrier.
class GemmMulticastTest : public GemmTemplateTest {};

TEST_P(GemmMulticastTest, AMulticastConfigurationLoadsTheWeightOnceForItsCluster) {
  auto knobs = kernelarc::task::default_knobs(template_());
  ASSERT_TRUE(knobs.contains("MULTICAST")) << GetParam() << " has no multicast";
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  std::string plain;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, plain));
  EXPECT_THAT(plain, ::testing::Not(HasSubstr("MULTICAST")));
  knobs["MULTICAST"] = 2;
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
  EXPECT_THAT(sass, HasSubstr("UTMALDG.2D.MULTICAST"));
  EXPECT_THAT(sass, HasSubstr("UCGABAR_WAIT"));
  EXPECT_THAT(sass, HasSubstr("SYNCS.ARRIVE.TRANS64.RED")) << "a stage released in the other block's barrier";
  // A release at the cluster's scope puts a GPU-wide memory barrier before each arrival, in the k loop (2.2x slower).
  int gpu_barriers = 0;
  for (auto at = sass.find("MEMBAR.ALL.GPU"); at != std::string::npos; at = sass.find("MEMBAR.ALL.GPU", at + 1)) ++gpu_barriers;
  EXPECT_LE(gpu_barriers, 2) << "MEMBAR.ALL.GPU only at the cluster barriers before the first load and before leaving";
  EXPECT_THAT(sass, HasSubstr(expected_mma(task_, knobs.at("BN"))));
  EXPECT_THAT(sass, ::testing::Not(HasSubstr("LDL"))) << "no local memory";
}

// The launch rule gives whole clusters: MULTICAST blocks for each tile of BM x MULTICAST rows, every row of y covered by
// one block (the last cluster's other blocks past M), a multiple of MULTICAST blocks when persistent; the weight's tensor
// map boxes a MULTICAST-th of a slice's rows, the share each block loads.
TEST_P(GemmMulticastTest, TheLaunchRuleGivesWholeClustersAndEachBlockItsShareOfTheWeight) {
  const auto& launch = *template_().launch;
  // The weight's maps: one, or gate-up's two (gate then up rows in each slice), each for BN / 2 columns of y.
  std::vector<const kernelarc::task::TensorMapRule*> weights;
  for (const auto& map : launch.tensor_maps)
    if (map.input != "x") weights.push_back(&map);
  ASSERT_FALSE(weights.empty());
  const std::int64_t out_per_product = weights.size() == 2 ? 2 : 1;  // product columns per column of y
  for (const std::int64_t multicast : {1, 2})
    for (const std::int64_t persistent : {0, 1})
      for (const std::int64_t m : {65, 128, 1571, 8192}) {
        kernelarc::task::Bindings names;
        for (const auto& [name, value] : kernelarc::task::default_knobs(template_())) names[name] = static_cast<double>(value);
        names["MULTICAST"] = static_cast<double>(multicast), names["PERSISTENT"] = static_cast<double>(persistent);
        names["M"] = static_cast<double>(m), names["N"] = 5120, names["K"] = 4096;
        const auto bound = kernelarc::task::launch_bindings(launch, names, 131);  // an odd SM count: clusters must still be whole
        const std::int64_t grid = launch.grid[0].evaluate_integer(bound);
        const std::int64_t bm = static_cast<std::int64_t>(names["BM"]), bn = static_cast<std::int64_t>(names["BN"]) / out_per_product;
        const std::int64_t tiles = (m + bm * multicast - 1) / (bm * multicast) * multicast * ((5120 + bn - 1) / bn);
        const std::string where = fmt::format("MULTICAST={} PERSISTENT={} M={}", multicast, persistent, m);
        EXPECT_EQ(grid % multicast, 0) << where;
        EXPECT_EQ(grid, persistent ? std::min<std::int64_t>(tiles, 131 / multicast * multicast) : tiles) << where;
        EXPECT_GE(tiles / multicast * bm * multicast * bn, m * 5120) << where << ": the tiles cover y";
        for (const auto* weight : weights) EXPECT_EQ(weight->box[1].evaluate_integer(bound), bn / multicast) << where << ", " << weight->input;
      }
}

// A composed candidate (engine/composition.h) puts several configurations in one module, the header's include hoisted
// above every part: each part's kernel keeps its own cluster (SPLIT_K or MULTICAST blocks; the .nv.info attribute
// EIATTR_CTA_PER_CLUSTER), and a part without one has none. A cluster decided when the header was included was none
// for every part, and a run's composed candidate failed on an H100 with an illegal instruction (2026-12-07).
TEST_P(GemmMulticastTest, EachPartOfAComposedCandidateKeepsItsOwnCluster) {
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  const auto knobs = kernelarc::task::default_knobs(template_());
  std::vector<kernelarc::judge::DispatchPart> parts{{with(knobs, {{"SPLIT_K", 2}}), 1 << 20, std::nullopt},
                                                    {knobs, std::int64_t{1} << 30, std::nullopt},
                                                    {with(knobs, {{"MULTICAST", 2}}), std::nullopt, std::nullopt}};
  const auto composed = kernelarc::engine::composed_source(task_, template_(), parts);
  std::string all;
  ASSERT_NO_FATAL_FAILURE(disassemble_source(nvdisasm, composed.source, {}, {}, all));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string kernel = composed.dispatch[i].launch->kernel, header = ".nv.info." + kernel + " ";
    const auto at = all.find(header);
    ASSERT_NE(at, std::string::npos) << "no " << header << "section";
    const std::string section = all.substr(at, all.find("//--------------------- .", at) - at);  // to the next section
    const bool cluster = parts[i].knobs.at("MULTICAST") > 1 || parts[i].knobs.at("SPLIT_K") > 1;
    EXPECT_EQ(section.find("EIATTR_CTA_PER_CLUSTER") != std::string::npos, cluster) << "part " << i << ": " << describe(parts[i].knobs);
  }
}

// With MMA 1 the consumers multiply on mma.sync from matrices read by ldmatrix (LDSM), the B200's path, on Hopper too.
class GemmMmaSyncTest : public GemmTemplateTest {};

TEST_P(GemmMmaSyncTest, AnMmaSyncConfigurationReadsMatricesIntoHmmaInsteadOfWgmma) {
  auto knobs = kernelarc::task::default_knobs(template_());
  ASSERT_TRUE(knobs.contains("MMA")) << GetParam() << " has no MMA knob";
  ASSERT_FALSE(knobs.contains("DECODE_M") && knobs.at("DECODE_M") != 0) << "the decode path's HMMA would hide the tile's";
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  knobs["MMA"] = 1;
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, knobs, sass));
  EXPECT_THAT(sass, HasSubstr("LDSM.16.M88.4"));
  EXPECT_THAT(sass, HasSubstr(operand_bytes(task_) == 1 ? "HMMA.16816.F32 " : "HMMA.16816.F32.BF16"));
  EXPECT_THAT(sass, ::testing::Not(HasSubstr("GMMA"))) << "no wgmma";
  EXPECT_THAT(sass, HasSubstr("UTMALDG.2D"));
}

// Every GEMM template builds for a B200 (sm_100a), where wgmma does not exist: the tile multiplies on mma.sync whatever
// MMA says, with TMA or cp.async loads as on Hopper; the default, split-K, and for tma_cuda the persistent walk,
// multicast and the decode path. Run where a B200 exists; here it is built and disassembled.
TEST_P(GemmTemplateTest, TheTemplateBuildsForABlackwellB200WithMmaSync) {
  const auto& tmpl = template_();
  std::vector<KnobValues> sample{kernelarc::task::default_knobs(tmpl)};
  sample.push_back(sample.front()), sample.back()["SPLIT_K"] = 2;
  if (sample.front().contains("MULTICAST")) {
    sample.push_back(with(sample.front(), {{"MULTICAST", 2}, {"PERSISTENT", 1}, {"EPILOGUE", 1}, {"STAGES", 3}, {"DECODE_M", 16}}));
  }
  const TemporaryCache cache;
  CudaCompilerOptions options;
  options.cache_directory = cache.path();
  options.architecture = "sm_100a";
  const CudaCompiler compiler(options);
  const std::string source = read_text_file(tmpl.source);
  for (const auto& knobs : sample) {
    const auto built = compiler.build_kernel({source, {}, knobs});
    ASSERT_TRUE(built.ok) << describe(knobs) << ":\n" << built.diagnostics;
    ASSERT_TRUE(built.resources.contains(tmpl.launch->kernel)) << describe(knobs) << ": " << built.resources.dump();
    auto mma_sync = knobs;
    mma_sync["MMA"] = 1;  // what a B200 builds: the same allowance as Hopper's mma.sync tile
    expect_no_spills(built.resources[tmpl.launch->kernel], mma_sync);
  }
  const std::string nvdisasm = find_nvdisasm();
  if (nvdisasm.empty()) GTEST_SKIP() << "no nvdisasm (not in this CUDA toolkit; scripts/setup installs PyPI's nvidia-cuda-nvdisasm)";
  std::string sass;
  ASSERT_NO_FATAL_FAILURE(disassemble(nvdisasm, sample.front(), sass, "sm_100a"));
  EXPECT_THAT(sass, HasSubstr(operand_bytes(task_) == 1 ? "HMMA.16816.F32 " : "HMMA.16816.F32.BF16"));
  EXPECT_THAT(sass, HasSubstr("LDSM"));
  EXPECT_THAT(sass, ::testing::Not(HasSubstr("GMMA")));
}

// A test name's part from its parameter: "gemm_bf16/tma_cuda" becomes gemm_bf16_tma_cuda.
std::string parameter_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmTemplateTest,
                         ::testing::Values("gemm_bf16", "gemm_bf16_residual", "gemm_bf16_bias_gelu", "gemm_bf16_gate_up_silu",
                                           "gemm_fp8_rowwise", "gemm_fp8_tensorwise", "gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda",
                                           "gemm_bf16_bias_gelu/tma_cuda", "gemm_bf16_gate_up_silu/tma_cuda", "gemm_fp8_rowwise/tma_cuda",
                                           "gemm_fp8_tensorwise/tma_cuda"),
                         parameter_name);

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmDecodeTest,
                         ::testing::Values("gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda", "gemm_bf16_bias_gelu/tma_cuda",
                                           "gemm_fp8_rowwise/tma_cuda", "gemm_fp8_tensorwise/tma_cuda"),
                         parameter_name);

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmMmaSyncTest,
                         ::testing::Values("gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda", "gemm_bf16_bias_gelu/tma_cuda",
                                           "gemm_bf16_gate_up_silu/tma_cuda", "gemm_fp8_rowwise/tma_cuda", "gemm_fp8_tensorwise/tma_cuda"),
                         parameter_name);

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmWholeTilesOf2560Test,
                         ::testing::Values("gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda", "gemm_bf16_bias_gelu/tma_cuda"),
                         parameter_name);

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmPingpongTest,
                         ::testing::Values("gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda", "gemm_bf16_bias_gelu/tma_cuda"),
                         parameter_name);

INSTANTIATE_TEST_SUITE_P(HopperGemm, GemmMulticastTest,
                         ::testing::Values("gemm_bf16/tma_cuda", "gemm_bf16_residual/tma_cuda", "gemm_bf16_bias_gelu/tma_cuda",
                                           "gemm_bf16_gate_up_silu/tma_cuda", "gemm_fp8_rowwise/tma_cuda", "gemm_fp8_tensorwise/tma_cuda"),
                         parameter_name);

}  // namespace
