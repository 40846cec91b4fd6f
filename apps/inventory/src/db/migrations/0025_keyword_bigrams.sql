-- Two-character keywords (轴承, 电机) are the usual search in Chinese, and a trigram index cannot serve a
-- pattern shorter than three characters: it scanned every row. These GIN indexes hold the lower-cased
-- character pairs of the searched columns; a two-character keyword is one pair, found in the index, then
-- checked by the same ILIKE as before. The columns are joined with a newline, which no keyword contains
-- (a pair across it is only an extra candidate, dropped by the ILIKE).
CREATE FUNCTION text_bigrams(value text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(lower(value), i, 2)), '{}')
    FROM generate_series(1, length(value) - 1) AS i
$$;
--> statement-breakpoint
CREATE INDEX stock_rows_keyword_bigrams_idx ON stock_rows USING gin (text_bigrams(
  coalesce(sku, '') || E'\n' || coalesce(batch_number, '') || E'\n' || coalesce(serial_number, '') || E'\n' || coalesce(warehouse_location, '')));
--> statement-breakpoint
CREATE INDEX materials_keyword_bigrams_idx ON materials USING gin (text_bigrams(coalesce(name, '') || E'\n' || coalesce(spec_model, '')));
