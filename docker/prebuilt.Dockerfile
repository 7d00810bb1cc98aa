# For docker/test-image.sh only: read after docker/Dockerfile (buildah bud -f docker/Dockerfile
# -f docker/prebuilt.Dockerfile), these two targets are the default and the static image built
# from the same `runtime` and `static-runtime` stages, with a skiff binary compiled outside the
# image build instead of the one the `build` and `build-static` stages compile. CI compiles skiff
# anyway (the Release build and its tests); compiling it twice more inside the image build took
# most of the time of its image step. The binaries come from a second build context named
# `binaries` (--build-context binaries=DIR, DIR holding skiff and skiff-static, stripped), so the
# main context is still the repository root with its .dockerignore. A file apart, not stages of
# docker/Dockerfile: an engine that builds every stage before the target (Docker's legacy
# builder) would fail there for want of that context.

FROM runtime AS prebuilt
COPY --from=binaries skiff /usr/local/bin/skiff

FROM static-runtime AS prebuilt-static
COPY --from=binaries skiff-static /usr/local/bin/skiff
