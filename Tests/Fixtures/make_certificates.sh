#!/bin/sh
# Makes the TLS tests' certificates into a directory with the openssl command line (OpenSSL 3.0
# or later). Nothing here is committed: the tests run this into a temporary directory.
#
#   make_certificates.sh <directory>
#
# Writes, each certificate beside its key (EC P-256 keys, PEM):
#   ca.pem, ca.key                   the test CA ("Requests Test CA")
#   server.pem, server.key           127.0.0.1 and localhost (subjectAltName IP and DNS), by the CA
#   server.pin                       the base64 SHA-256 of server.pem's SubjectPublicKeyInfo
#   expired.pem, expired.key         the same names, valid only in January 2020, by the CA
#   wrong-host.pem, wrong-host.key   other.example only, by the CA
#   client-ca.pem, client-ca.key     a second CA, for client certificates only
#   client.pem, client.key           CN "requests-test-client", clientAuth, by the client CA
#
# Uses no openssl.cnf of the system's: every configuration is written here.
set -eu

dir=$1
mkdir -p "$dir"
cd "$dir"

cat > req.cnf <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
EOF

key() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null
}

# A CA: self-signed, CA:TRUE, for signing certificates only.
ca() {
    key "$1"
    printf 'basicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\n' > "$1.ext"
    openssl req -config req.cnf -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -signkey "$1.key" -days 3650 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}

# A leaf: name, common name, extensions file, CA; valid from now for ten years.
leaf() {
    key "$1"
    openssl req -config req.cnf -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA "$4.pem" -CAkey "$4.key" -set_serial "$5" -days 3650 \
        -extfile "$3" -out "$1.pem" 2>/dev/null
}

ca ca "Requests Test CA"
ca client-ca "Requests Test Client CA"

cat > server.ext <<'EOF'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
EOF
leaf server 127.0.0.1 server.ext ca 1001

printf 'basicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = serverAuth\nsubjectAltName = DNS:other.example\n' > wrong-host.ext
leaf wrong-host other.example wrong-host.ext ca 1002

printf 'basicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = clientAuth\n' > client.ext
leaf client requests-test-client client.ext client-ca 2001

# Expired: `openssl x509 -req` sets no past start before OpenSSL 3.4 (-not_before), so the CA
# signs it with `openssl ca`, whose -startdate and -enddate take any dates.
key expired
openssl req -config req.cnf -new -key expired.key -subj "/CN=127.0.0.1" -out expired.csr
mkdir -p ca-db
: > ca-db/index.txt
echo 1003 > ca-db/serial
cat > ca.cnf <<'EOF'
[ca]
default_ca = test_ca
[test_ca]
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
default_md = sha256
policy = any
copy_extensions = none
x509_extensions = server_extensions
unique_subject = no
[any]
commonName = supplied
[server_extensions]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
EOF
openssl ca -batch -notext -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr \
    -startdate 20200101000000Z -enddate 20200131000000Z -out expired.pem 2>/dev/null

# The pin, as the documentation of CertificatePins tells users to compute it.
openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der |
    openssl dgst -sha256 -binary | base64 > server.pin

rm -f ./*.csr ./*.ext ./*.srl req.cnf ca.cnf
rm -rf ca-db
