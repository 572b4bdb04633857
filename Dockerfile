# Build: docker build -t lounge .   Run: docker run --rm -p 8080:8080 lounge
FROM rust:1-bookworm AS build
WORKDIR /src
# Dependencies first, so a change to the sources does not rebuild them.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests/it \
    && echo 'fn main() {}' > src/main.rs && touch src/lib.rs benches/ayo.rs tests/it/main.rs \
    && cargo build --release --locked --bin lounge \
    && rm -rf src benches tests
COPY . .
RUN touch src/main.rs src/lib.rs && cargo build --release --locked --bin lounge

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
