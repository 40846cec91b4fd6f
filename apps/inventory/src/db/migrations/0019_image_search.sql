-- Image search (issue 13): material image descriptors are searched by Euclidean distance with a GiST index
-- on the contrib `cube` type, which both PostgreSQL (contrib) and PGlite (@electric-sql/pglite/contrib/cube)
-- provide; pgvector is not available here. The tables come in the next migration.
CREATE EXTENSION IF NOT EXISTS cube;
