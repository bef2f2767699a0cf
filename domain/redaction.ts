/** "Ama Serwaa Mensah" → "Ama M." : a first name and an initial, for public views. */
export function firstNameAndInitial(fullName: string): string {
  const parts = fullName.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return '';
  const first = parts[0] as string;
  if (parts.length === 1) return first;
  const last = parts[parts.length - 1] as string;
  return `${first} ${Array.from(last)[0]?.toUpperCase() ?? ''}.`;
}

/** "+233241234567" → "+233•••••4567" : enough to recognise, not to call. */
export function maskPhone(phone: string): string {
  return phone.length <= 4 ? '••••' : `${phone.slice(0, 4)}${'•'.repeat(Math.max(0, phone.length - 8))}${phone.slice(-4)}`;
}
