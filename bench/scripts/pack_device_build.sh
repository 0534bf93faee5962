#!/usr/bin/env bash
# Run here, before a device call that builds on the GPU machine (bench/scripts/lib/device_build.sh):
# that machine has nvcc, CMake and ninja but none of the Debian packages kbit's CMake finds. Copies
# the headers and CMake package files of libcli11-dev, doctest-dev and nlohmann-json3-dev into
# .deps/sys (ignored; a copy of the installed packages for that build, never committed), and with
# OLD=REV also packs REV's sources (without bench/results) as .deps/old-src.txz, the A/B scripts' old arm.
# Carry .deps/sys.txz (the copy packed, about 0.3 MB) and .deps/old-src.txz. Usage: [OLD=REV] bash bench/scripts/pack_device_build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
S=.deps/sys
rm -rf "$S"; mkdir -p "$S/include" "$S/share/cmake" "$S/lib/cmake"
cp -r /usr/include/CLI /usr/include/doctest /usr/include/nlohmann "$S/include/"
cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$S/share/cmake/"
cp -r /usr/lib/cmake/doctest "$S/lib/cmake/"
# doctest's targets file names /usr as its prefix; make it the copy's root, as the other two compute it.
sed -i 's|^set(_IMPORT_PREFIX "/usr")|get_filename_component(_IMPORT_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)|' \
  "$S/lib/cmake/doctest/doctestTargets.cmake"
grep -q 'CMAKE_CURRENT_LIST_DIR' "$S/lib/cmake/doctest/doctestTargets.cmake"
if [ -n "${OLD:-}" ]; then
  git archive "$OLD" | tar --delete bench/results | xz -6 > .deps/old-src.txz
  echo "old sources: $(git rev-parse --short "$OLD"), $(du -h .deps/old-src.txz | cut -f1)"
fi
tar cf - -C .deps sys | xz -6 > .deps/sys.txz
du -h .deps/sys.txz
