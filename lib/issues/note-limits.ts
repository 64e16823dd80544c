/**
 * The longest note, in characters (Unicode code points, so an emoji counts once); shared by
 * the validation, the tool's description and the dashboard's form, which must not import the
 * database code of issue-notes.ts.
 */
export const NOTE_MAX_CHARACTERS = 5000
