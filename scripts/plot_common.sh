# Sourced by the plot scripts: checks their arguments and that gnuplot is installed.
#   plot_check LAB_EXECUTABLE "$@"     exits 2 with one line on bad use
plot_check() {
  local lab=$1
  shift
  if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: $0 FILE.csv [OUT.png] [DEVICE NAME]  (FILE.csv from $lab --csv)" >&2
    exit 2
  fi
  if ! command -v gnuplot >/dev/null; then
    echo "gnuplot is not installed: sudo apt-get install gnuplot-nox (Debian/Ubuntu), then run this again" >&2
    exit 2
  fi
}
