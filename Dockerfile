# syntax=docker/dockerfile:1
# The base image is pinned by digest (the multi-platform index of python:3.11-slim, Python 3.11.15 on
# Debian trixie), so a rebuild starts from the same bytes; the tag is there for readers. To update:
# `docker buildx imagetools inspect python:3.11-slim` and copy the index digest here and below.

# Build: wheels of every dependency as locked (versions and hashes), then of the project alone, so the
# runtime stage installs offline and gets exactly these.
FROM python:3.11-slim@sha256:90744cff8f32887f075c47d747a173ff333e9e98801667af93c357fa9f5e28ff AS build
WORKDIR /src
COPY requirements.lock pyproject.toml README.md ./
COPY webhook ./webhook
RUN pip wheel --no-cache-dir --require-hashes --only-binary=:all: --wheel-dir /wheels -r requirements.lock
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# Runtime: no compiler, no build files, no pip cache; runs as a numeric non-root user, so the
# kubelet can check runAsNonRoot, and needs no writable path (readOnlyRootFilesystem).
FROM python:3.11-slim@sha256:90744cff8f32887f075c47d747a173ff333e9e98801667af93c357fa9f5e28ff
# Set at build time: docker build --build-arg REVISION="$(git rev-parse HEAD)" --build-arg SOURCE=URL
ARG VERSION=0.1.0
ARG REVISION=""
ARG SOURCE=""
LABEL org.opencontainers.image.title="dra-webhook" \
      org.opencontainers.image.description="Validating and mutating admission webhook for Kubernetes Dynamic Resource Allocation (resource.k8s.io)" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="docker.io/library/python:3.11-slim" \
      org.opencontainers.image.base.digest="sha256:90744cff8f32887f075c47d747a173ff333e9e98801667af93c357fa9f5e28ff"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels dra-webhook
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["dra-webhook"]
# The serving certificate comes from a mounted Secret and is reloaded when it changes.
CMD ["serve", "--cert-file", "/certs/tls.crt", "--key-file", "/certs/tls.key"]
