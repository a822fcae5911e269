/** An enum value as a reader says it: IN_PROGRESS → In progress. */
export function spoken(value: string): string {
  return value.charAt(0) + value.slice(1).toLowerCase().replaceAll('_', ' ');
}
