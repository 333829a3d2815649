#!/usr/bin/env bash
# Make sure the Debian packages mmlab needs are installed (`make deps`).
#
# Quiet when everything is present.  Otherwise, as root, installs what is
# missing with apt-get (non-interactive); as another user, prints the
# command to run and exits 1.
#
#   liburcu-dev          userspace RCU (-lurcu-memb -lurcu-common)
#   gcc make binutils    the build (cc, ld, ar, objcopy)
#   libtsan2             ThreadSanitizer runtime for the tsan test flavour;
#                        gcc's libtsan.so link comes from libgcc-<ver>-dev,
#                        which gcc pulls in (checked below all the same)
#   perl                 prove, for running the TAP tests by hand
#   python3 python3-venv the plotting venv of `make run`
set -euo pipefail

PACKAGES=(liburcu-dev gcc make binutils libtsan2 perl python3 python3-venv)

have_pkg() {
	local status
	status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
	[ "$status" = "install ok installed" ]
}

missing_pkgs() {
	local p ver
	for p in "${PACKAGES[@]}"; do
		have_pkg "$p" || echo "$p"
	done
	# The linker script/symlink gcc -fsanitize=thread needs; it lives in
	# libgcc-<major>-dev, not in libtsan2.
	if command -v gcc >/dev/null 2>&1; then
		case "$(gcc -print-file-name=libtsan.so)" in
		/*) ;;
		*)	ver=$(gcc -dumpversion | cut -d. -f1)
			echo "libgcc-$ver-dev" ;;
		esac
	fi
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	# Not Debian: check for the tools themselves and say what is missing.
	miss=()
	for c in gcc make ld ar objcopy python3; do
		command -v "$c" >/dev/null 2>&1 || miss+=("$c")
	done
	[ -e /usr/include/urcu.h ] || [ -e /usr/local/include/urcu.h ] || miss+=("liburcu (urcu.h)")
	if [ ${#miss[@]} -gt 0 ]; then
		echo "install-deps: not a Debian system (no dpkg-query); missing: ${miss[*]}" >&2
		echo "install-deps: install the equivalents of: ${PACKAGES[*]}" >&2
		exit 1
	fi
	exit 0
fi

mapfile -t missing < <(missing_pkgs)
[ ${#missing[@]} -eq 0 ] && exit 0

install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run as root (or with sudo):" >&2
	echo "    apt-get update && DEBIAN_FRONTEND=noninteractive $install_cmd" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-q -o DPkg::Lock::Timeout=300)
if ! apt-get "${apt_opts[@]}" update </dev/null >&2; then
	echo "install-deps: apt-get update failed" >&2
	exit 1
fi
if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null >&2; then
	echo "install-deps: apt-get install failed: ${missing[*]}" >&2
	exit 1
fi

mapfile -t still < <(missing_pkgs)
if [ ${#still[@]} -gt 0 ]; then
	echo "install-deps: still missing after apt-get install: ${still[*]}" >&2
	exit 1
fi
echo "install-deps: done" >&2
