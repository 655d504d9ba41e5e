# syntax=docker/dockerfile:1
# Build: wheels of the project and of every dependency, so the runtime stage installs offline.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY webhook ./webhook
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

# Runtime: no compiler, no build files, no pip cache; runs as a numeric non-root user, so the
# kubelet can check runAsNonRoot, and needs no writable path (readOnlyRootFilesystem).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels dra-webhook
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["dra-webhook"]
# The serving certificate comes from a mounted Secret and is reloaded when it changes.
CMD ["serve", "--cert-file", "/certs/tls.crt", "--key-file", "/certs/tls.key"]
