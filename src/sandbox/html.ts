/** HTML escaping for the sandbox's pages (the hosted pay page and the dashboard): every value is escaped where it is written. */
const ENTITIES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/** Text safe in HTML content and in a quoted attribute value. */
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
