-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: the database owner may
-- install it. It goes in schema public, once per database, so the schemas that share a
-- database (one per test run, or per tenant) all find the operator class by one name.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- CreateIndex
CREATE INDEX "LayoutTemplate_title_trgm_idx" ON "LayoutTemplate" USING GIN ("title" public.gin_trgm_ops);
