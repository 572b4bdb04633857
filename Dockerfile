# Build: docker build -t lounge .   Run: docker run --rm -p 8080:8080 lounge
FROM rust:1-bookworm AS build
# libpq (pq-sys `bundled`) and OpenSSL (openssl-sys `vendored`) are compiled from source with
# the C compiler, make and perl this image has (no bison or flex: the crates ship the generated
# sources) and linked statically, so the binary needs only libc and libgcc at run time.
WORKDIR /src
# Dependencies first, so a change to the sources does not rebuild them (nor libpq and OpenSSL).
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests/it \
    && echo 'fn main() {}' > src/main.rs && touch src/lib.rs benches/ayo.rs tests/it/main.rs \
    && cargo build --release --locked --bin lounge \
    && rm -rf src benches tests
COPY . .
# web/ and config/default.toml are compiled into the binary (include_str!).
RUN touch src/main.rs src/lib.rs && cargo build --release --locked --bin lounge \
    && ldd target/release/lounge \
    && if ldd target/release/lounge | grep -Ev 'linux-vdso|ld-linux|lib(c|m|gcc_s|pthread|dl|rt|resolv|util)\.so'; then \
         echo "the binary needs a library debian:bookworm-slim lacks" >&2; exit 1; fi

FROM debian:bookworm-slim
RUN useradd --system --home /app --shell /usr/sbin/nologin lounge \
    && mkdir -p /app/data && chown lounge /app/data
WORKDIR /app
COPY --from=build /src/target/release/lounge /usr/local/bin/lounge
COPY config ./config
USER lounge
ENV LOUNGE_SERVER__BIND=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["lounge"]
CMD ["serve"]
