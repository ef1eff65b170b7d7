#!/usr/bin/env bash
# One table of what every device shows: every lab (each labs/NN_topic folder whose executable
# answers --describe, so a new lab is included by itself) with its solutions, every variant, on
# each device; handouts/devices.md is written from the labs' own verdict and CSV files.
#
#   scripts/devices.sh run [--device D]... [--kind NAME] [--out DIR]
#       runs every lab on each device named (default: every device --list-devices shows) at its
#       default size, with --variant all; on Oclgrind with its race-check arguments. Raw results
#       go to DIR/<kind>/ (default DIR: build/devices): LAB.verdict, LAB.csv, LAB.out, and
#       kind.txt. NAME labels the device in the table (default: its platform / device name);
#       --kind goes with exactly one --device.
#   scripts/devices.sh table DIR... [--to FILE]
#       merges the raw results of every DIR (from any machines) into FILE (default
#       handouts/devices.md): one section per device kind, one row per lab and variant.
#
# Runs from any folder; paths are resolved from this script's own location.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin

usage() {
  echo "usage: scripts/devices.sh run [--device D]... [--kind NAME] [--out DIR]" >&2
  echo "       scripts/devices.sh table DIR... [--to FILE]" >&2
  exit 2
}

# Lab folders with an executable that describes itself.
labs() {
  local dir id
  for dir in "$root"/labs/[0-9][0-9]_*/; do
    id=$(basename "$dir")
    [ -x "$bin/lab$id" ] && "$bin/lab$id" --describe >/dev/null 2>&1 && echo "$id"
  done
  return 0
}

# A folder name for a device kind: letters, digits, dots and dashes.
slug() { echo "$1" | tr -c 'A-Za-z0-9.\n-' '_' | tr -s '_'; }

run() {
  local out=$root/build/devices kind="" devices=()
  while [ $# -gt 0 ]; do
    case $1 in
      --device) [ $# -ge 2 ] || usage; devices+=("$2"); shift 2 ;;
      --kind) [ $# -ge 2 ] || usage; kind=$2; shift 2 ;;
      --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
      *) usage ;;
    esac
  done
  if [ -n "$kind" ] && [ ${#devices[@]} -ne 1 ]; then
    echo "devices.sh: --kind names one device: give exactly one --device with it" >&2
    exit 2
  fi
  local all_labs
  all_labs=($(labs))
  [ ${#all_labs[@]} -gt 0 ] || { echo "devices.sh: no lab built in $bin: build first (bash scripts/setup.sh)" >&2; exit 2; }
  local first=$bin/lab${all_labs[0]}
  # "spec type CUs ... platform / device": the spec, and the name from the last column's start.
  local listing
  listing=$("$first" --list-devices | awk 'NR == 1 { at = index($0, "platform / device"); next }
                                             { print $1 "\t" substr($0, at) }')
  if [ ${#devices[@]} -eq 0 ]; then
    while IFS=$'\t' read -r spec _; do devices+=("$spec"); done <<< "$listing"
  fi
  mkdir -p "$out"
  local dev
  for dev in "${devices[@]}"; do
    # The device's line in the list: its spec, or a name it contains (as --device matches).
    local name label dir oclgrind=0
    name=$(awk -F'\t' -v d="$dev" '$1 == d || index(tolower($2), tolower(d)) { print $2; exit }' <<< "$listing")
    label=${kind:-${name:-$dev}}
    case "$(echo "$name $dev" | tr 'A-Z' 'a-z')" in *oclgrind*) oclgrind=1 ;; esac
    dir=$out/$(slug "$label")
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    printf 'kind\t%s\ndevice\t%s\nspec\t%s\nhost\t%s\ndate\t%s\n' "$label" "${name:-$dev}" "$dev" \
      "$(uname -n)" "$(date -u +%Y-%m-%dT%H:%MZ)" > "$dir/kind.txt"
    echo "devices.sh: $label ($dev) -> $dir"
    local id
    for id in "${all_labs[@]}"; do
      local exe=$bin/lab$id args=()
      if [ $oclgrind = 1 ]; then
        # The race check's arguments, from the lab's declaration.
        local race
        race=$("$exe" --describe | awk -F'\t' '$1 == "race" { for (i = 2; i <= NF; i++) print $i }')
        [ -n "$race" ] && mapfile -t args <<< "$race"
      fi
      local rc=0
      # From the results folder, so what the lab prints names its files as they are kept.
      (cd "$dir" && "$exe" --device "$dev" --kernels "$root/solutions" --variant all \
        --timeout 120 "${args[@]}" --verdict "lab$id.verdict" --csv "lab$id.csv" \
        > "lab$id.out" 2>&1) || rc=$?
      "$exe" --describe > "$dir/lab$id.describe"
      echo "  lab$id: exit $rc"
    done
    # The device as the labs name it: their first line, "labNN on PLATFORM / DEVICE: ...".
    local seen
    seen=$(sed -n '1s/^lab[^ ]* on \(.*\): .*/\1/p' "$dir"/lab*.out 2>/dev/null | head -1)
    [ -n "$seen" ] && sed -i "s|^device\t.*|device\t$seen|" "$dir/kind.txt"
  done
}

table() {
  local to=$root/handouts/devices.md dirs=()
  while [ $# -gt 0 ]; do
    case $1 in
      --to) [ $# -ge 2 ] || usage; to=$2; shift 2 ;;
      *) dirs+=("$1"); shift ;;
    esac
  done
  [ ${#dirs[@]} -gt 0 ] || usage
  local kinds=()
  local d k
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || { echo "devices.sh: $d is not a folder of results (scripts/devices.sh run --out $d)" >&2; exit 2; }
    for k in "$d"/*/kind.txt "$d"/kind.txt; do [ -f "$k" ] && kinds+=("$(dirname "$k")"); done
  done
  [ ${#kinds[@]} -gt 0 ] || { echo "devices.sh: no results (kind.txt) under ${dirs[*]}" >&2; exit 2; }
  # Sections in the order of the course's devices, then any other by name.
  local ordered
  ordered=$(for k in "${kinds[@]}"; do
    label=$(awk -F'\t' '$1 == "kind" { print $2 }' "$k/kind.txt")
    case "$(echo "$label" | tr 'A-Z' 'a-z')" in
      *pocl*3*) o=1 ;; *pocl*5*) o=2 ;; *pocl*|*portable*) o=3 ;; *nvidia*|*h100*) o=4 ;; *oclgrind*) o=6 ;; *) o=5 ;;
    esac
    printf '%s\t%s\t%s\n' "$o" "$label" "$k"
  done | sort -t$'\t' -k1,1n -k2,2)
  {
    echo "# What every device shows"
    echo
    echo "Generated by \`scripts/devices.sh table\` from the labs' own verdict (\`--verdict\`) and CSV"
    echo "(\`--csv\`) files; do not edit it by hand. To refresh a section, run the labs on that device"
    echo "(\`scripts/devices.sh run --device D --kind NAME --out DIR\`, on any machine) and generate the"
    echo "table again from every result folder (\`scripts/devices.sh table DIR...\`)."
    echo
    echo "Every lab runs its solutions (\`--kernels solutions --variant all\`) at its default size; on"
    echo "Oclgrind with its race-check arguments. **verified**: right on every check; **wrong**: a"
    echo "wrong result (demonstration variants are meant to be); **race-reported**: Oclgrind reported"
    echo "a data race, a memory-model race between work-groups (hbcheck) or barrier divergence in it;"
    echo "**skipped**: this device cannot run it (why). The key ratio is the lab's own measure (lab 05:"
    echo "slowdown against the kernel named, with its theory; lab 08: % of the read probe's bandwidth and"
    echo "the ratio to CLBlast's sum); on Oclgrind, an interpreter, times mean nothing and no ratio is shown."
    while IFS=$'\t' read -r _ label k; do
      echo
      echo "## $label"
      echo
      awk -F'\t' '$1 == "device" { d = $2 } $1 == "host" { h = $2 } $1 == "date" { t = $2 }
        END { printf "Device: %s (on %s, %s).\n", d, h, t }' "$k/kind.txt"
      echo
      echo "| lab | variant | state | key ratio |"
      echo "| --- | --- | --- | --- |"
      local v
      for v in "$k"/lab*.verdict; do
        [ -f "$v" ] || continue
        local id=${v##*/}; id=${id%.verdict}
        local csv=${v%.verdict}.csv desc=${v%.verdict}.describe
        awk -F'\t' -v lab="$id" -v csvfile="$csv" -v descfile="$desc" -v label="$label" '
          function cell(row, name) { return (name in col) ? rows[row, col[name]] : "" }
          function short(s) { gsub(/\|/, "\\|", s); return length(s) > 110 ? substr(s, 1, 107) "..." : s }
          BEGIN {
            ocl = tolower(label) ~ /oclgrind/
            while ((getline line < descfile) > 0) {
              split(line, f, "\t")
              if (f[1] == "variant" && f[4] == "demonstration") demo[f[2]] = 1
            }
            nrows = 0
            if ((getline line < csvfile) > 0) {
              nc = split(line, h, ",")
              for (i = 1; i <= nc; i++) col[h[i]] = i
              while ((getline line < csvfile) > 0) {
                nrows++
                split(line, c, ",")
                for (i = 1; i <= nc; i++) rows[nrows, i] = c[i]
              }
            }
          }
          # A variant'"'"'s key ratio from its CSV row(s): by the lab'"'"'s own columns.
          function ratio(v,    r, key, out, extra) {
            if (ocl) return "-"
            out = ""
            for (r = 1; r <= nrows; r++) {
              key = ("rung" in col) ? cell(r, "rung") : cell(r, "variant")
              if (key == "" && !("variant" in col) && !("rung" in col)) key = v  # one table for all
              if (key != v && !(v == "expensive" && key == "expensive_vs_busy")) continue
              extra = ""
              if ("pct_of_read" in col && cell(r, "pct_of_read") != "") {
                extra = sprintf("%.1f%% of read", cell(r, "pct_of_read"))
                if (cell(r, "pct_of_read") > 100) extra = extra " (above the read bound: the bound is wrong)"
                if (cell(r, "x_clblast") != "") extra = extra sprintf(", %.2fx CLBlast", cell(r, "x_clblast"))
              } else if ("slowdown" in col && cell(r, "slowdown") != "") {
                extra = sprintf("%.2fx vs %s (theory %s%s)", cell(r, "slowdown"), cell(r, "baseline"),
                                cell(r, "theory_low") != "" && sprintf("%.0f", cell(r, "theory_low")) != sprintf("%.0f", cell(r, "theory")) ? sprintf("%.0f-", cell(r, "theory_low")) : "",
                                sprintf("%.0fx", cell(r, "theory")))
              } else if ("wrong_trials" in col) {
                extra = sprintf("%s/%s trials wrong", cell(r, "wrong_trials"), cell(r, "trials"))
              } else if ("ratio" in col) {
                extra = sprintf("n = %s: multi-kernel / host sum %.2f", cell(r, "n"), cell(r, "ratio"))
              } else if ("kernel_share" in col) {
                extra = sprintf("n = %s: kernel %.0f%% of the time", cell(r, "n"), cell(r, "kernel_share"))
              }
              if (extra == "") continue
              # Per-n tables: the largest n (the last row) alone.
              if (!("variant" in col) && !("rung" in col)) out = extra
              else out = out (out == "" ? "" : "; ") extra
            }
            return out == "" ? "-" : out
          }
          $1 == "finding" { if ($3 == "data-race" || $3 == "memory-model" || $3 == "barrier-divergence") raced[$2] = raced[$2] ? raced[$2] : $3 " at " $4 }
          $1 == "variant" { n++; name[n] = $2; state[n] = $3; detail[n] = $4 }
          $1 == "result" { rk = $3; rmsg = $5; rexit = $2 }
          END {
            if (n == 0) {
              printf "| %s | - | skipped (%s: %s) | - |\n", lab, rk == "" ? "no result" : rk, short(rmsg)
              exit
            }
            for (i = 1; i <= n; i++) {
              v = name[i]
              s = state[i]
              if (v in raced) s = "race-reported (" raced[v] ")"
              else if (s == "skipped") s = "skipped (" short(detail[i]) ")"
              else if (s == "wrong") s = "wrong: " short(detail[i])
              printf "| %s | %s%s | %s | %s |\n", lab, v, (v in demo) ? " (demonstration)" : "", s, ratio(v)
            }
          }' "$v"
      done
    done <<< "$ordered"
  } > "$to.tmp"
  mv "$to.tmp" "$to"
  echo "devices.sh: wrote $to"
}

case ${1:-} in
  run) shift; run "$@" ;;
  table) shift; table "$@" ;;
  *) usage ;;
esac
