// Host-side pieces of the fragment model (lib/kbit/fragment.h): the ldmatrix simulation the
// checker runs on the CPU, and names for reports.
#include "kbit/fragment.h"

#include <cstdio>

namespace kbit::frag {

std::string simulate_ldmatrix(const uint16_t* smem, size_t smem_halves, const int row_offset[kWarpSize],
                              int num, bool trans, uint32_t out[kWarpSize][4]) {
  if (!ldmatrix_valid_num(num)) return "ldmatrix: num must be 1, 2 or 4";
  for (int lane = 0; lane < 8 * num; ++lane) {
    const int off = row_offset[lane];
    char buf[160];
    if (off < 0 || size_t(off) + 8 > smem_halves) {
      std::snprintf(buf, sizeof buf, "ldmatrix: lane %d supplies half offset %d, outside [0, %zu)", lane, off,
                    smem_halves);
      return buf;
    }
    if (off % 8 != 0) {
      std::snprintf(buf, sizeof buf, "ldmatrix: lane %d supplies half offset %d, not 16-byte aligned", lane, off);
      return buf;
    }
  }
  for (int lane = 0; lane < kWarpSize; ++lane) {
    for (int reg = 0; reg < num; ++reg) {
      uint32_t v = 0;
      for (int half = 0; half < 2; ++half) {
        const RowCol rc = ldmatrix_elem(lane, half, trans);
        const uint16_t e = smem[row_offset[ldmatrix_addr_lane(reg, rc.row)] + rc.col];
        v |= uint32_t(e) << (16 * half);
      }
      out[lane][reg] = v;
    }
  }
  return {};
}

const char* elt_name(Elt e) { return e == Elt::f16 ? "f16" : "bf16"; }
const char* acc_name(Acc a) { return a == Acc::f32 ? "f32" : "f16"; }

}  // namespace kbit::frag
