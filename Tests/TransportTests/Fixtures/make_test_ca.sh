#!/bin/sh
# Generates a throw-away CA and a server certificate it signed, into the directory $1:
#   ca.pem                      the test CA (what RECIPES_CA_BUNDLE would name)
#   server.pem / server.key     for 127.0.0.1 and localhost (SAN)
#   other.pem / other.key       signed by the same CA but for the name "elsewhere.invalid" only
set -eu
dir=$1
cd "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
    -days 2 -subj "/CN=recipes transport test CA" >/dev/null 2>&1
sign() { # name, subjectAltName
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "/CN=$1" >/dev/null 2>&1
    printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days 2 \
        -extfile "$1.ext" >/dev/null 2>&1
}
sign server "IP:127.0.0.1,DNS:localhost"
sign other "DNS:elsewhere.invalid"
