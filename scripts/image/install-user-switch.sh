#!/bin/sh
# Installs PREFIX/libexec/vantage/user-switch, through which the non-root agent runs each user script as a user
# of its own (VANTAGE_USER_SWITCH, docs/browser-checks.md "Sandbox"): a copy of setpriv with CAP_SETUID and
# CAP_SETGID in its file-permitted and effective sets. Only GROUP (the agent's) may run it: a script, running as
# another user, cannot. Where the container lacks SETUID or SETGID the kernel refuses to start it, and the agent
# then says so and runs scripts as itself. Needs root and setcap (libcap2-bin).
set -eu
prefix=${1:?usage: install-user-switch.sh PREFIX GROUP}
group=${2:?usage: install-user-switch.sh PREFIX GROUP}
install -d "$prefix/libexec/vantage"
install -m 0750 -o 0 -g "$group" "$(command -v setpriv)" "$prefix/libexec/vantage/user-switch"
setcap cap_setuid,cap_setgid=ep "$prefix/libexec/vantage/user-switch"
