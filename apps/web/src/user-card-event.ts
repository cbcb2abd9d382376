/** Asks for a person's card from anywhere in the page (a sender's name in the feed); people-layer.tsx listens. */
export const USER_CARD_EVENT = 'teamchat-user-card';
export const openUserCard = (userId: number) => window.dispatchEvent(new CustomEvent<number>(USER_CARD_EVENT, { detail: userId }));
