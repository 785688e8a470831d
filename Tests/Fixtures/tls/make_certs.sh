#!/bin/sh
# Makes the TLS fixtures of OriginTLSTests: a test CA, a server certificate it signs for
# 127.0.0.1 and localhost, and one it signs for another name only (host name checks).
# Valid for 100 years; run again to replace them.
set -eu
cd "$(dirname "$0")"
openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=gallery test CA" \
    -keyout ca.key -out ca.pem 2>/dev/null
for name in local other; do
    if [ "$name" = local ]; then san="IP:127.0.0.1,DNS:localhost"; else san="DNS:other.example"; fi
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$name.key" -out "$name.csr" 2>/dev/null
    printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$san" > "$name.ext"
    openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 36500 \
        -extfile "$name.ext" -out "$name.pem" 2>/dev/null
    rm -f "$name.csr" "$name.ext"
done
rm -f ca.key ca.srl
