# Sourced by benchmarks run from the package root: PARE names the pare to time, else the
# release build is made (or brought up to date) and used.
if [ -z "${PARE:-}" ]; then
    swift build -c release --product pare >/dev/null
    PARE=$(swift build -c release --show-bin-path)/pare
fi
