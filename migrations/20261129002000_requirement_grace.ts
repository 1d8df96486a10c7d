import type { Knex } from 'knex';

/**
 * Grace periods for requirement changes (issue 36). Every change that raises a platform's
 * requirement version (an onboarding field change, a blocking document version) is enforced
 * immediately, as before, or from a date: `requirement_graces` holds one row per raised version
 * whose enforcement waits, with the date it is enforced from. No row: enforced at once (every
 * version before this migration, and every `immediately` change). Moving the date moves the
 * row; a date in the past enforces it. Fields and documents share these rows: a blocking
 * document version records the requirement version its publication raised
 * (`document_versions.requirement_version`), so one row says when both the schema change and
 * the document bind.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE requirement_graces (
      platform_id uuid NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
      requirement_version integer NOT NULL CHECK (requirement_version > 0),
      enforce_after timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (platform_id, requirement_version)
    );
    COMMENT ON TABLE requirement_graces IS 'Requirement versions of a platform whose enforcement waits until enforce_after (issue 36); no row: enforced at publication';
    COMMENT ON COLUMN requirement_graces.enforce_after IS 'From then on the version blocks whoever has not met it; moved by moveRequirementGraces';
    ALTER TABLE document_versions ADD COLUMN requirement_version integer;
    COMMENT ON COLUMN document_versions.requirement_version IS 'The platform requirement version this blocking version raised when published (null: non-blocking, or published before issue 36)';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE document_versions DROP COLUMN requirement_version;
    DROP TABLE requirement_graces;
  `);
}
