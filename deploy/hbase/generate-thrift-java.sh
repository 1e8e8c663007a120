#!/usr/bin/env bash
# Generates the gateway's Java code for THBaseService from the project's IDL.
# Run by Maven (pom.xml, generate-sources) on every build.
#
# Usage: generate-thrift-java.sh IDL OUT_DIR WORK_DIR
#
# Java code without a package cannot be imported, so the compiler reads a copy
# of the IDL that names the gateway's Java package, whatever Java namespace
# the IDL itself names or leaves out; the IDL stays as it is.
set -euo pipefail

[[ $# == 3 ]] || { echo "usage: $0 IDL OUT_DIR WORK_DIR" >&2; exit 2; }
idl=$1 out=$2 work=$3
[[ -f $idl ]] || { echo "generate-thrift-java.sh: no IDL at $idl" >&2; exit 1; }
command -v thrift >/dev/null ||
  { echo "generate-thrift-java.sh: the thrift compiler is missing (Debian package thrift-compiler)" >&2; exit 1; }

mkdir -p "$work"
{
  echo 'namespace java rtb.storage.thrift2'
  grep -v -E '^[[:space:]]*namespace[[:space:]]+java[[:space:]]' "$idl"
} >"$work/hbase.thrift"
rm -rf "$out"
mkdir -p "$out"
# No @Generated: javax.annotation is not on the classpath of JDK 11 and later.
thrift --gen java:generated_annotations=suppress -out "$out" "$work/hbase.thrift"
