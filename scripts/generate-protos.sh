#!/bin/sh
# Generates Sources/FCMMCS/Generated/*.pb.swift from Protos/*.proto. The generated
# code is committed: a build never runs protoc. Needs protoc (Debian's
# protobuf-compiler) and protoc-gen-swift of the swift-protobuf version Package.swift
# names, built once:
#   git clone https://github.com/apple/swift-protobuf && cd swift-protobuf &&
#   git checkout 1.39.0 && swift build --product protoc-gen-swift
# then PROTOC_GEN_SWIFT=/path/to/.build/debug/protoc-gen-swift scripts/generate-protos.sh
set -eu
cd "$(dirname "$0")/.."
plugin=${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}
[ -n "$plugin" ] || { echo "generate-protos: set PROTOC_GEN_SWIFT to protoc-gen-swift's path" >&2; exit 1; }
mkdir -p Sources/FCMMCS/Generated
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Public \
  --swift_out=Sources/FCMMCS/Generated -I Protos Protos/checkin.proto Protos/mcs.proto
