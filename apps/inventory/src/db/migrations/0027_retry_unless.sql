-- Lets one statement end a transaction that lost a race (issue 14): raises a serialization failure
-- (40001) unless `ok`. The service runs such a transaction again from the start, as it does for
-- RetryTransaction, so the statement may be sent together with the COMMIT in one round trip: when it
-- raises, the COMMIT after it never runs and the transaction is rolled back.
CREATE FUNCTION retry_unless(ok boolean, reason text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'serialization_failure', MESSAGE = reason;
  END IF;
  RETURN true;
END;
$$;
