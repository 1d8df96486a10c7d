import type { Knex } from 'knex';

/**
 * Closes what the row triggers of 20261127001000 leave open (issue 25's review):
 * - TRUNCATE fires no row trigger, so one statement could empty the append-only record or the
 *   published versions; a statement trigger refuses it on both tables (it fires too when a
 *   TRUNCATE ... CASCADE from platform_documents or users reaches them). The purge of a deleted
 *   account deletes its rows one by one, which the row trigger allows.
 * - a document's key, kind or platform never change (no statement of the gateway changes them):
 *   the record names the document by id, so turning a platform's terms into a withdrawable
 *   `custom` document, or renaming it, would change what every earlier acceptance means.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% cannot be truncated: its rows are a record', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
    END $$;
    CREATE TRIGGER agreement_records_no_truncate BEFORE TRUNCATE ON agreement_records
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
    CREATE TRIGGER document_versions_no_truncate BEFORE TRUNCATE ON document_versions
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

    CREATE FUNCTION platform_documents_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (NEW.platform_id, NEW.document_key, NEW.kind) IS DISTINCT FROM (OLD.platform_id, OLD.document_key, OLD.kind) THEN
        RAISE EXCEPTION 'document % keeps its platform, key and kind', OLD.id USING ERRCODE = 'restrict_violation';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER platform_documents_identity_fixed BEFORE UPDATE ON platform_documents
      FOR EACH ROW EXECUTE FUNCTION platform_documents_identity_fixed();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER platform_documents_identity_fixed ON platform_documents;
    DROP FUNCTION platform_documents_identity_fixed();
    DROP TRIGGER document_versions_no_truncate ON document_versions;
    DROP TRIGGER agreement_records_no_truncate ON agreement_records;
    DROP FUNCTION refuse_truncate();
  `);
}
