#!/usr/bin/env bash
# Installs every Debian package schedd builds and tests with. Idempotent; quiet when all is present.
# Usage: scripts/install-deps.sh            (as root, or with sudo available)
set -euo pipefail
PKGS=(pkg-config libsqlite3-dev sqlite3 libsystemd-dev systemd dbus-daemon dbus-bin
      python3 python3-dbus python3-gi libnotify-bin dunst xvfb tzdata
      libssl-dev python3-cryptography
      faketime groff-base man-db zsh fish bash-completion
      python3-jeepney python3-pytest python3-venv python3-setuptools python3-wheel jq
      lintian dpkg-dev binutils adduser
      libglib2.0-dev-bin libglib2.0-dev gcc
      xfce4-notifyd notification-daemon mate-notification-daemon imagemagick
      systemd-container debootstrap dbus-broker
      gnome-shell gjs xdotool tesseract-ocr tesseract-ocr-eng fonts-dejavu-core strace)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
