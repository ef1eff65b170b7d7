# Sourced by the plot scripts: checks their arguments, that gnuplot is installed and that the
# CSV has the columns they read (by name, from its first line).
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
# The column number of NAME in $csv's header line, or nothing.
col() { head -1 "$csv" | tr -d '\r' | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
#   plot_columns WHAT NAME...          exits 2 unless $csv's header names every column
plot_columns() {
  local what=$1 c
  shift
  for c in "$@"; do
    if [ -z "$(col "$c")" ]; then
      echo "$csv is not a $what file (its first line has no $c column)" >&2
      exit 2
    fi
  done
}
