/** Types of payload.js (plain JavaScript, so the Next floor app builds without our tsconfig). */
export function floorJson(bytes: number): string
export function floorFormAnswer(fields: number): string
