# fcm-device in a container: built in Swift's image, run in a slim Debian with no Swift.
#   docker build -t fcm-device .
#   docker run --rm -p 5235:5235 -p 5236:5236 -p 8085:8085 fcm-device
#   docker run --rm -it fcm-device tui --no-listen          (the TUI, in the terminal)
# Not built or run where fcm-device is developed (no Docker engine there): see
# docs/packaging.md for what is tested and what is not.
ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN apt-get update -qq && apt-get install -y -qq libncursesw5-dev libexpat1-dev libsqlite3-dev
WORKDIR /src
COPY . .
RUN swift build -c release --product fcm-device --static-swift-stdlib \
    && cp .build/release/fcm-device /usr/local/bin/fcm-device

FROM debian:bookworm-slim
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libncursesw6 libexpat1 libsqlite3-0 libstdc++6 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/fcm-device /usr/local/bin/fcm-device
COPY profiles /profiles
# The device's state (tokens, held messages, the TLS identity, the service account) lives here.
VOLUME /state
EXPOSE 5235 5236 8085
ENTRYPOINT ["fcm-device"]
# Reachable from outside the container; the control API then needs a secret
# (add --control-token SECRET), as on any bind beyond loopback.
CMD ["serve", "--bind", "0.0.0.0", "--state", "/state"]
