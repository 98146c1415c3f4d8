#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build can-stack-dkms_VERSION_all.deb with dpkg-deb alone: the source
# under /usr/src/can-stack-VERSION/ and a dkms.conf that has DKMS build the
# given modules for every kernel and put them in updates/.
#
#   can-dkms-deb.sh OUTDIR MODULE.ko...   (paths relative to the tree)
#
# VERSION comes from a VERSION file at the top of the tree, else from git.

set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
shift
[ $# -gt 0 ] || { echo "usage: $0 OUTDIR MODULE.ko..." >&2; exit 2; }

# Debian versions start with a digit; git describe needs a tag for that.
version() {
	local desc

	if [ -f "$TOP/VERSION" ]; then
		cat "$TOP/VERSION"
	elif desc=$(git -C "$TOP" describe --tags --dirty 2>/dev/null); then
		echo "${desc#v}" | tr - +
	else
		echo "0+git$(git -C "$TOP" log -1 --format=%cd --date=format:%Y%m%d).$(git -C "$TOP" rev-parse --short HEAD)"
	fi
}

VER=$(version)
NAME=can-stack
STAGE=$OUT/dkms-deb
SRCDIR=$STAGE/usr/src/$NAME-$VER
DEB=$OUT/$NAME-dkms_${VER}_all.deb

# Drivers are built only if the package installs them.
drivers=0
case " $* " in *" drivers/"*) drivers=1 ;; esac

rm -rf "$STAGE"
mkdir -p "$SRCDIR" "$STAGE/DEBIAN"
# What a Kbuild run needs: the files git knows, as they are in the tree.
(cd "$TOP" && git ls-files -z Kbuild Kconfig Makefile VERSION net drivers include \
		scripts/can-install.sh scripts/can-deps.sh |
	xargs -0 cp --parents -t "$SRCDIR")

{
	echo "PACKAGE_NAME=\"$NAME\""
	echo "PACKAGE_VERSION=\"$VER\""
	echo "# The build starts with can-install.sh's dkms-check: it fails for a kernel"
	echo "# that make install put the stack in. It ends with can-install.sh's check:"
	echo "# it fails when a module of the kernel would stop loading on ours;"
	echo "# CAN_STACK_FORCE=1 in dkms's environment overrides that."
	echo "MAKE[0]=\"make KDIR=\${kernel_source_dir} KVER=\${kernelver} DRIVERS=$drivers FORCE=\${CAN_STACK_FORCE:-0} dkms-build\""
	echo "CLEAN=\"make KDIR=\${kernel_source_dir} KVER=\${kernelver} dkms-clean\""
	i=0
	for m in "$@"; do
		echo "BUILT_MODULE_NAME[$i]=\"$(basename "$m" .ko)\""
		echo "BUILT_MODULE_LOCATION[$i]=\"$(dirname "$m")\""
		echo "DEST_MODULE_LOCATION[$i]=\"/updates/$(dirname "$m")\""
		i=$((i + 1))
	done
	echo "AUTOINSTALL=\"yes\""
} > "$SRCDIR/dkms.conf"

cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: $NAME-dkms
Version: $VER
Architecture: all
Maintainer: The CAN stack developers <can-stack@localhost>
Depends: dkms, make, gcc
Section: kernel
Priority: optional
Description: CAN stack for Linux (PF_CAN, raw, BCM), built by DKMS
 The CAN protocol modules of the can-stack tree, rebuilt by DKMS for every
 installed kernel and placed in /lib/modules/KVER/updates/, where modprobe
 prefers them to the kernel's own. Removing the package restores those.
CONTROL

# Built for every kernel with headers; a kernel whose CAN modules would
# stop loading is skipped with can-install.sh's message, not an error of
# the package.
cat > "$STAGE/DEBIAN/postinst" <<POSTINST
#!/bin/sh
set -e
[ "\$1" = configure ] || exit 0
dkms status -m $NAME -v $VER | grep -q . || dkms add -m $NAME -v $VER
for k in /lib/modules/*/build; do
	[ -d "\$k" ] || continue
	kver=\$(basename "\$(dirname "\$k")")
	dkms install -m $NAME -v $VER -k "\$kver" ||
		echo "$NAME-dkms: not installed for \$kver (see above)" >&2
done
exit 0
POSTINST

cat > "$STAGE/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
dkms remove -m $NAME -v $VER --all || true
exit 0
PRERM
chmod 755 "$STAGE/DEBIAN/postinst" "$STAGE/DEBIAN/prerm"

mkdir -p "$OUT"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" > /dev/null
rm -rf "$STAGE"
echo "$DEB"
