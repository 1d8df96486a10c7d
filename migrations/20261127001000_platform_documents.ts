import type { Knex } from 'knex';

/**
 * Terms, privacy notices and other documents of a platform, their versions, and the record of
 * every acceptance and withdrawal (issue 25).
 *
 * Two rules are enforced here and not only in the service, because the record must hold up
 * whatever code writes to the database:
 * - a published version never changes and is never deleted (its text digest is what the
 *   record holds, so the record proves what was shown);
 * - the record is append-only: no row is updated, and no row is deleted while its person's
 *   account exists (a deleted account's rows may go with its purge).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE platform_documents (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      document_key text NOT NULL CHECK (document_key ~ '^[A-Za-z][A-Za-z0-9_]{1,63}$'),
      kind text NOT NULL CHECK (kind IN ('terms', 'privacy', 'custom')),
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT platform_documents_key_unique UNIQUE (platform_id, document_key)
    );
    COMMENT ON TABLE platform_documents IS 'A platform''s documents: its terms, its privacy notice, and named custom consents';
    CREATE UNIQUE INDEX platform_documents_one_of_kind ON platform_documents (platform_id, kind) WHERE kind <> 'custom';

    CREATE TABLE document_versions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      document_id uuid NOT NULL REFERENCES platform_documents (id),
      version integer NOT NULL CHECK (version >= 1),
      material boolean NOT NULL,
      effective_at timestamptz,
      default_language text NOT NULL,
      texts jsonb NOT NULL CHECK (jsonb_typeof(texts) = 'object' AND jsonb_exists(texts, default_language)),
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT document_versions_number_unique UNIQUE (document_id, version),
      CONSTRAINT document_versions_published_effective CHECK (published_at IS NULL OR effective_at IS NOT NULL)
    );
    COMMENT ON TABLE document_versions IS 'Versions of a document: one draft at most, published ones immutable (trigger)';
    COMMENT ON COLUMN document_versions.texts IS 'Per language tag: {title, markdown, sha256} or {title, url, sha256}; sha256 is the digest of the text shown';
    CREATE UNIQUE INDEX document_versions_one_draft ON document_versions (document_id) WHERE published_at IS NULL;
    CREATE INDEX document_versions_published ON document_versions (document_id, version DESC) WHERE published_at IS NOT NULL;

    CREATE FUNCTION document_versions_published_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.published_at IS NOT NULL THEN
        RAISE EXCEPTION 'document version % is published and cannot be changed or deleted', OLD.id
          USING ERRCODE = 'restrict_violation';
      END IF;
      IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER document_versions_published_immutable BEFORE UPDATE OR DELETE ON document_versions
      FOR EACH ROW EXECUTE FUNCTION document_versions_published_immutable();

    CREATE TABLE agreement_records (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      platform_id uuid NOT NULL REFERENCES platforms (id),
      document_id uuid NOT NULL REFERENCES platform_documents (id),
      version_id uuid NOT NULL REFERENCES document_versions (id),
      version integer NOT NULL,
      action text NOT NULL CHECK (action IN ('accept', 'withdraw')),
      text_digest text NOT NULL CHECK (text_digest ~ '^[0-9a-f]{64}$'),
      language text NOT NULL,
      session_id uuid,
      recorded_at timestamptz NOT NULL DEFAULT now()
    );
    COMMENT ON TABLE agreement_records IS 'Append-only record of acceptances and withdrawals (trigger): the latest row per person and document is the current state';
    COMMENT ON COLUMN agreement_records.text_digest IS 'SHA-256 (hex) of the text shown, in the language shown';
    COMMENT ON COLUMN agreement_records.session_id IS 'The gateway session it happened in (no foreign key: sessions are purged, the record is not)';
    CREATE INDEX agreement_records_person ON agreement_records (user_id, document_id, id DESC);
    CREATE INDEX agreement_records_document ON agreement_records (document_id, user_id, id DESC);
    CREATE INDEX agreement_records_version ON agreement_records (version_id);
    CREATE INDEX agreement_records_platform ON agreement_records (platform_id);

    CREATE FUNCTION agreement_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id AND deleted_at IS NULL) THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'agreement records are append-only' USING ERRCODE = 'restrict_violation';
    END $$;
    CREATE TRIGGER agreement_records_append_only BEFORE UPDATE OR DELETE ON agreement_records
      FOR EACH ROW EXECUTE FUNCTION agreement_records_append_only();

    ALTER TABLE audit_events ADD COLUMN document_key text CHECK (document_key ~ '^[A-Za-z][A-Za-z0-9_]{1,63}$');
    ALTER TABLE audit_events ADD COLUMN document_version integer;
    COMMENT ON COLUMN audit_events.document_key IS 'The document a publication, acceptance or withdrawal concerns';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events DROP COLUMN document_version;
    ALTER TABLE audit_events DROP COLUMN document_key;
    DROP TABLE agreement_records;
    DROP FUNCTION agreement_records_append_only();
    DROP TABLE document_versions;
    DROP FUNCTION document_versions_published_immutable();
    DROP TABLE platform_documents;
  `);
}
