#!/bin/sh
# Stands in for Prisma's native schema engine, which cannot be downloaded here.
# `prisma generate` never calls it; anything that does fails loudly.
echo "the native Prisma schema engine is not available: use npm run db:migration:new" >&2
exit 1
