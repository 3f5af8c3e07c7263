#!/bin/sh
# The README's library example (its first C block) is tests/install/consumer/main.c,
# verbatim. Usage: readme_example.sh README.md main.c
set -u
awk '/^```c$/ { f = 1; next } /^```$/ { if (f) exit } f' "$1" | cmp - "$2" && echo "README-EXAMPLE-OK"
