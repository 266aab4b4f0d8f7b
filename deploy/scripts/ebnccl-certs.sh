#!/usr/bin/env bash
# ebnccl-certs.sh: the fleet's TLS material in one command (openssl only).
#
#   ebnccl-certs.sh [--dir DIR] [--days N] ca
#       DIR/ca.pem (the fleet CA, give it to every host) and DIR/ca.key
#       (keep it off the fleet).
#   ebnccl-certs.sh [--dir DIR] coordinator NAME [SAN...]
#       DIR/coordinator.pem/.key for the coordinator host NAME; SANs are the
#       other names and addresses agents and ebctl dial (IPs or DNS names;
#       localhost and 127.0.0.1 are always added).
#   ebnccl-certs.sh [--dir DIR] node NAME...
#       DIR/nodes/NAME.pem/.key per node: CN and DNS SAN = the node name
#       (the coordinator refuses a registration under any other name), URI
#       SAN ebnccl:role:agent.
#   ebnccl-certs.sh [--dir DIR] client NAME viewer|operator|admin
#       DIR/clients/NAME.pem/.key for ebctl: CN = NAME (the identity in
#       `ebctl audit` and started_by), URI SAN ebnccl:role:ROLE.
#
# Options: --dir DIR (default /etc/ebnccl/tls), --days N (validity, default
# 825; the CA 3650), --not-before/--not-after YYYYMMDDHHMMSSZ (explicit
# validity, e.g. to test an expired certificate), --ca-dir DIR (the CA to
# sign with, default --dir).
# Keys are EC P-256, mode 0600. Files are replaced atomically (written
# beside, then renamed), so re-running a command rotates a certificate:
# the daemons re-read their files (tls.reload_period) without a restart.
set -euo pipefail

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
die() { echo "ebnccl-certs.sh: $*" >&2; exit 2; }

dir=/etc/ebnccl/tls
ca_dir=
days=825
not_before=
not_after=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --ca-dir) ca_dir=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --not-before) not_before=$2; shift 2 ;;
    --not-after) not_after=$2; shift 2 ;;
    -h|--help) usage ;;
    --*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
command=$1; shift
ca_dir=${ca_dir:-$dir}
command -v openssl >/dev/null || die "openssl is not installed"
umask 077
mkdir -p "$dir"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# sign NAME OUT_BASE EKU SAN: a key, a CSR and the CA's signature; the
# results replace OUT_BASE.pem and OUT_BASE.key atomically.
sign() {
  local cn=$1 out=$2 eku=$3 san=$4
  [[ -f "$ca_dir/ca.pem" && -f "$ca_dir/ca.key" ]] ||
    die "no CA in $ca_dir (run: $0 --dir $ca_dir ca)"
  mkdir -p "$(dirname "$out")"
  new_key "$tmp/key.pem"
  openssl req -new -key "$tmp/key.pem" -subj "/O=ebnccl/CN=$cn" -out "$tmp/req.csr"
  : >"$tmp/index.txt"
  cat >"$tmp/ca.cnf" <<CNF
[ ca ]
default_ca = fleet
[ fleet ]
database = $tmp/index.txt
new_certs_dir = $tmp
certificate = $ca_dir/ca.pem
private_key = $ca_dir/ca.key
default_md = sha256
policy = any
unique_subject = no
rand_serial = yes
copy_extensions = none
[ any ]
organizationName = optional
commonName = supplied
[ leaf ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = $eku
subjectAltName = $san
CNF
  local validity=(-days "$days")
  if [[ -n "$not_before" || -n "$not_after" ]]; then
    [[ -n "$not_before" && -n "$not_after" ]] || die "--not-before and --not-after go together"
    validity=(-startdate "$not_before" -enddate "$not_after")
  fi
  openssl ca -batch -notext -config "$tmp/ca.cnf" -extensions leaf "${validity[@]}" \
    -in "$tmp/req.csr" -out "$tmp/cert.pem" 2>"$tmp/ca.log" || { cat "$tmp/ca.log" >&2; exit 1; }
  chmod 600 "$tmp/key.pem"
  chmod 644 "$tmp/cert.pem"
  # Key first: the file watcher takes a pair only once key and cert match.
  install -m 600 "$tmp/key.pem" "$out.key.new" && mv -f "$out.key.new" "$out.key"
  install -m 644 "$tmp/cert.pem" "$out.pem.new" && mv -f "$out.pem.new" "$out.pem"
  echo "$out.pem ($cn; $san)"
}

# "10.0.0.1" -> IP:10.0.0.1, "host" -> DNS:host.
san_entry() {
  if [[ $1 =~ ^[0-9.]+$ || $1 == *:* ]]; then echo "IP:$1"; else echo "DNS:$1"; fi
}

case "$command" in
  ca)
    [[ $# -eq 0 ]] || usage
    [[ ! -f "$dir/ca.key" ]] || die "$dir/ca.key exists; remove it to make a new CA"
    new_key "$tmp/ca.key"
    openssl req -x509 -new -key "$tmp/ca.key" -subj "/O=ebnccl/CN=ebnccl fleet CA" -sha256 \
      -days "${EBNCCL_CA_DAYS:-3650}" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$tmp/ca.pem"
    chmod 600 "$tmp/ca.key"; chmod 644 "$tmp/ca.pem"
    mv "$tmp/ca.key" "$dir/ca.key"; mv "$tmp/ca.pem" "$dir/ca.pem"
    echo "$dir/ca.pem (fleet CA; keep $dir/ca.key off the fleet)"
    ;;
  coordinator)
    [[ $# -ge 1 ]] || usage
    name=$1; shift
    # localhost too: ebctl and the validation timer on the coordinator's
    # host dial 127.0.0.1.
    san="DNS:$name"
    for extra in "$@" localhost 127.0.0.1; do
      entry=$(san_entry "$extra")
      [[ ",$san," == *",$entry,"* ]] || san="$san,$entry"
    done
    sign "$name" "$dir/coordinator" serverAuth "$san"
    ;;
  node)
    [[ $# -ge 1 ]] || usage
    for name in "$@"; do
      [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || die "node name '$name' is not a DNS name"
      sign "$name" "$dir/nodes/$name" clientAuth "DNS:$name,URI:ebnccl:role:agent"
    done
    ;;
  client)
    [[ $# -eq 2 ]] || usage
    name=$1 role=$2
    case "$role" in viewer|operator|admin) ;; *) die "role '$role' is not viewer, operator or admin" ;; esac
    [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._@-]*$ ]] || die "client name '$name' has odd characters"
    sign "$name" "$dir/clients/$name" clientAuth "URI:ebnccl:role:$role"
    ;;
  *) usage ;;
esac
