/** "Ama Serwaa Mensah" → "Ama M." : a first name and an initial, for public views. */
export function firstNameAndInitial(fullName: string): string {
  const parts = fullName.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return '';
  const first = parts[0] as string;
  if (parts.length === 1) return first;
  const last = parts[parts.length - 1] as string;
  return `${first} ${Array.from(last)[0]?.toUpperCase() ?? ''}.`;
}
