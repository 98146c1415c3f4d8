#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the build and the VM tests need from Debian, and where the pieces of
# linux-source-6.1 we use (the kselftest harness) are unpacked.
#
#   can-deps.sh check     exit 0 if everything is installed
#   can-deps.sh install   install it with apt-get
#   can-deps.sh ksft      print the directory holding kselftest_harness.h
#   can-deps.sh kver      print the version of the kernel the VM boots by
#                         default (Debian's linux-image-amd64), after
#                         checking that its image and headers are there
#   can-deps.sh install-matrix  also install the other kernels "make
#                         check-all" tests: Debian 12's 6.12 and 6.12-rt
#                         (image and headers); "make check" never needs them
#   can-deps.sh matrix    print the versions "make check-all" runs on, one a
#                         line: the default kernel, 6.12, 6.12-rt

set -eu

PACKAGES="linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static kmod cpio iproute2 can-utils
	gcc make xz-utils flex bison bc libelf-dev libssl-dev rsync sparse
	python3 python3-can"
# The metapackages name the newest 6.12 build; headers and image of the
# same version come with them. Not linux-image-amd64's kernel: installing
# these leaves the default KVER at 6.1.
MATRIX_META="linux-image-6.12-amd64 linux-image-6.12-rt-amd64"
MATRIX_PACKAGES="$MATRIX_META linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64"
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
CACHE=${CAN_CACHE:-/var/cache/can-stack}

missing_packages() {
	local p

	for p in ${1:-$PACKAGES}; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

install() {
	local missing

	missing=$(missing_packages "${1:-}")
	[ -z "$missing" ] && return 0
	echo "can-deps: installing:" $missing >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
}

ksft_dir() {
	local d

	for d in /usr/src/linux-source-6.1 "$CACHE/linux-source-6.1"; do
		if [ -f "$d/tools/testing/selftests/kselftest_harness.h" ]; then
			echo "$d/tools/testing/selftests"
			return 0
		fi
	done
	mkdir -p "$CACHE"
	tar -C "$CACHE" -xJf "$SRC_TAR" \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h
	echo "$CACHE/linux-source-6.1/tools/testing/selftests"
}

# The kernel linux-image-amd64 (or the metapackage $1) depends on, not the
# newest headers found: with 6.12's headers also installed that would pick
# a kernel whose image the VM may not have.
default_kver() {
	local meta=${1:-linux-image-amd64} image kver

	image=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
		grep -o 'linux-image-[^ ,]*' | head -1)
	if [ -z "$image" ]; then
		echo "can-deps: $meta is not installed (make deps)" >&2
		return 1
	fi
	kver=${image#linux-image-}
	if [ ! -f "/boot/vmlinuz-$kver" ]; then
		echo "can-deps: $image is not installed: no /boot/vmlinuz-$kver" >&2
		return 1
	fi
	if [ ! -d "/usr/src/linux-headers-$kver" ]; then
		echo "can-deps: the VM boots /boot/vmlinuz-$kver but" \
			"/usr/src/linux-headers-$kver is missing" \
			"(install linux-headers-$kver, or set KVER)" >&2
		return 1
	fi
	echo "$kver"
}

case "${1:-}" in
check)
	[ -z "$(missing_packages)" ]
	;;
install)
	install
	;;
ksft)
	ksft_dir
	;;
kver)
	default_kver
	;;
install-matrix)
	install
	install "$MATRIX_PACKAGES"
	;;
matrix)
	default_kver
	for m in $MATRIX_META; do
		default_kver "$m"
	done
	;;
*)
	echo "usage: $0 check|install|ksft|kver|install-matrix|matrix" >&2
	exit 2
	;;
esac
