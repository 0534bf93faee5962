// kbit-fragcheck: proves the warp fragment model (lib/kbit/fragment.h) and every shared-memory
// layout instantiation of lib/kbit/smem_layout.h on the CPU (bijection, bounds, bank conflicts per
// access phase against the declared ways, ldmatrix -> mma fragment equality, bit-plane extraction),
// and with --gpu runs probe kernels that execute the real ldmatrix / mma.sync / cp.async and compare
// every lane's registers with the model. Exit codes: 0 all checks passed, 1 a check failed,
// 2 usage error, 77 --gpu asked but no usable CUDA device (or built without CUDA).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "kbit/fragcheck.h"
#ifdef KBIT_FRAGCHECK_GPU
#include "probe.h"
#endif

using kbit::fragcheck::Check;

namespace {

std::string ways_text(const Check& c) {
  if (c.declared < 0) return "";
  return std::to_string(c.measured) + "/" + std::to_string(c.declared);
}

void print_table(const std::vector<Check>& checks, bool failures_only) {
  std::printf("%-7s  %-66s  %-4s  %-5s  %8s  %s\n", "group", "check", "ok", "ways", "cases", "detail");
  std::printf("%-7s  %-66s  %-4s  %-5s  %8s  %s\n", "-------", std::string(66, '-').c_str(), "----", "-----",
              "--------", "------");
  for (const Check& c : checks) {
    if (failures_only && c.ok) continue;
    std::printf("%-7s  %-66s  %-4s  %-5s  %8ld  %s\n", c.group.c_str(), c.name.c_str(), c.ok ? "PASS" : "FAIL",
                ways_text(c).c_str(), c.cases, c.detail.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kbit-fragcheck: prove fragment layouts and shared-memory swizzles (CPU; --gpu: on the device)"};
  bool json = false, gpu = false, failures_only = false, inject = false;
  app.add_flag("--json", json, "print one JSON document instead of the table");
  app.add_flag("--gpu", gpu, "also run the probe kernels on the CUDA device (exit 77 without one)");
  app.add_flag("--failures-only", failures_only, "table: show failing checks only");
  app.add_flag("--inject-fault", inject,
               "with --gpu: compare the device against deliberately wrong expectations (every GPU check must FAIL)");
  CLI11_PARSE(app, argc, argv);

  std::vector<Check> checks = kbit::fragcheck::run_cpu_checks();
  std::string device = "not requested";
  bool gpu_unavailable = false;
  if (gpu) {
#ifdef KBIT_FRAGCHECK_GPU
    kbit::fragcheck::GpuInfo info;
    const std::vector<Check> g = kbit::fragcheck::run_gpu_probes(info, inject);
    device = info.device;
    gpu_unavailable = !info.available;
    checks.insert(checks.end(), g.begin(), g.end());
#else
    device = "this build has no CUDA (KBIT_HAVE_CUDA off): GPU probes not compiled";
    gpu_unavailable = true;
#endif
  }
  int failed = 0;
  for (const Check& c : checks) failed += !c.ok;

  if (json) {
    nlohmann::json j;
    j["tool"] = "kbit-fragcheck";
    j["gpu_requested"] = gpu;
    j["inject_fault"] = inject;
    j["device"] = device;
    j["gpu_available"] = gpu && !gpu_unavailable;
    j["checks_total"] = checks.size();
    j["checks_failed"] = failed;
    j["ok"] = failed == 0 && !(gpu && gpu_unavailable);
    for (const Check& c : checks) {
      nlohmann::json r = {{"group", c.group}, {"name", c.name}, {"ok", c.ok}, {"cases", c.cases}, {"detail", c.detail}};
      if (c.declared >= 0) {
        r["ways_measured"] = c.measured;
        r["ways_declared"] = c.declared;
      }
      j["checks"].push_back(r);
    }
    std::cout << j.dump(1) << "\n";
  } else {
    print_table(checks, failures_only);
    std::printf("\n%zu checks, %d failed. GPU: %s\n", checks.size(), failed, device.c_str());
  }
  if (failed) {
    std::fprintf(stderr, "kbit-fragcheck: %d check(s) FAILED\n", failed);
    return 1;
  }
  if (gpu && gpu_unavailable) {
    std::fprintf(stderr, "kbit-fragcheck: --gpu: %s; CPU checks passed, GPU checks skipped (exit 77)\n", device.c_str());
    return 77;
  }
  return 0;
}
