# Multi-stage build of the one schedfarm binary.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/schedfarm ./cmd/schedfarm

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/schedfarm /usr/local/bin/schedfarm
COPY configs /configs
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/schedfarm"]
