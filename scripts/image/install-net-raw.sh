#!/bin/sh
# Installs PREFIX/libexec/vantage/net-raw, the helper through which PREFIX/bin/vantage hands a granted NET_RAW
# capability to the non-root agent (see that script): a copy of setpriv with CAP_NET_RAW in its file-permitted
# set only. With the effective bit unset, the copy still runs where NET_RAW is not granted (it then simply gains
# nothing). Needs root and setcap (libcap2-bin).
set -eu
prefix=${1:?usage: install-net-raw.sh PREFIX}
install -d "$prefix/libexec/vantage"
install -m 0755 "$(command -v setpriv)" "$prefix/libexec/vantage/net-raw"
setcap cap_net_raw=p "$prefix/libexec/vantage/net-raw"
